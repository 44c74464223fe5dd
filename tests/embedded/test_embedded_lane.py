"""The embedded lane: `make run`'s server (SQLite, in-memory channel layer, eager Celery,
the embedded beat) played like production, over the real protocols.

One server for the module (starting it costs seconds): the tests below run in order on
it, like one long session of a new user and their friends, and the last ones check what
that session left behind (the ledger, the event store, the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import threading
import time
import urllib.request
import uuid
from typing import Any

import pytest
import websockets

from tests.embedded.server import Server, embedded_env, manage, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("embedded_lane")]

PASSWORD = "lane-Pw-" + uuid.uuid4().hex[:12]
HANDS_OVER_REST = 120
HANDS_OVER_WS = 90


class Session:
    """What the session knows and must never find in the server's log."""

    def __init__(self, server: Server, admin_password: str) -> None:
        self.server = server
        self.secrets: set[str] = {PASSWORD, admin_password}
        self.admin_password = admin_password
        self.tokens: dict[str, str] = {}
        admin_token = server.token("admin", admin_password)
        self.secrets.add(admin_token)
        self.admin_token = admin_token

    def user(self, name: str) -> str:
        token = self.server.register(name, PASSWORD)
        self.tokens[name] = token
        self.secrets.add(token)
        return token

    def table(self, **overrides: Any) -> int:
        body = {
            "name": f"Lane {uuid.uuid4().hex[:6]}", "variant": "NT", "small_blind": 5,
            "big_blind": 10, "min_buy_in": 200, "max_buy_in": 5_000, "max_seats": 6,
            "action_seconds": 30, **overrides,
        }  # fmt: skip
        status, created = self.server.call("POST", "/api/v1/tables/", self.admin_token, body)
        assert status == 201, created
        return created["id"]


@contextlib.contextmanager
def _serve(tmp: Any, **env_extra: str) -> Any:
    """Migrates, seeds and serves as ``make run`` does; yields the session's client."""
    env = embedded_env(tmp, **env_extra)
    migrate = manage(env, "migrate", "--noinput")
    assert migrate.returncode == 0, migrate.stderr
    seed = manage(env, "seed_demo")
    assert seed.returncode == 0, seed.stderr
    admin_password = re.search(r"Admin user created: admin / (\S+)", seed.stdout).group(1)
    server = Server(env, tmp)
    server.start()
    try:
        yield Session(server, admin_password)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def lane(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with _serve(tmp_path_factory.mktemp("embedded-lane")) as session:
        yield session


def _view(session: Session, table_id: int, token: str | None = None) -> dict[str, Any]:
    path = f"/api/v1/tables/{table_id}/state/" if token else f"/api/v1/tables/{table_id}/"
    status, body = session.server.call("GET", path, token)
    assert status == 200, body
    return body


def _sit(session: Session, table_id: int, name: str, buy_in: int = 2_000) -> int:
    status, body = session.server.call(
        "POST", f"/api/v1/tables/{table_id}/sit/", session.tokens[name], {"buy_in": buy_in}
    )
    assert status in (200, 201), body
    return _view(session, table_id, session.tokens[name])["you"]["seat"]


def _actor_seat(view: dict[str, Any]) -> int | None:
    hand = view.get("hand")
    return hand["actor_seat"] if hand else None


# --- defect 1: the shot clock fires under `make run` -----------------------------------------


def test_a_turn_times_out_through_the_embedded_beat_under_make_run(lane: Session) -> None:
    table = lane.table(action_seconds=1)
    seat_of = {}
    for name in ("tina", "tom"):
        lane.user(name)
        seat_of[_sit(lane, table, name)] = name
    first = _view(lane, table)
    hand, actor = first["hand"]["id"], _actor_seat(first)
    assert actor in seat_of
    # Nobody acts: after the action time and the time bank, the embedded beat's sweeper
    # folds (or checks) for the absent player, and the hand moves on without them.
    deadline_s = 1 + 30 + 30  # action time + a full time bank + the machine's slack
    moved = wait_for(
        "the shot clock to act for the absent player",
        lambda: (
            (v := _view(lane, table))["hand"] is None
            or v["hand"]["id"] != hand
            or _actor_seat(v) != actor
        ),
        seconds=deadline_s,
        every=0.5,
    )
    assert moved
    status, hands = lane.server.call("GET", f"/api/v1/hands/?table={table}", lane.tokens["tina"])
    assert status == 200, hands


# --- defect 2: leaving on your turn, on SQLite ------------------------------------------------


def test_leaving_on_your_turn_under_make_run_folds_and_cashes_out(lane: Session) -> None:
    table = lane.table()
    seat_of = {}
    for name in ("lea", "leo"):
        lane.user(name)
        seat_of[_sit(lane, table, name)] = name
    leaver = seat_of[_actor_seat(_view(lane, table))]
    status, body = lane.server.call(
        "POST", f"/api/v1/tables/{table}/leave/", lane.tokens[leaver], {}
    )
    assert status == 200, body
    assert body["left"] is True and body["cashed_out"] > 0  # the fold ended the hand
    seats = [s["seat"] for s in _view(lane, table)["seats"]]
    assert len(seats) == 1  # heads-up, the fold ended the hand and the leaver is gone
    status, wallet = lane.server.call("GET", "/api/v1/wallet/", lane.tokens[leaver])
    assert status == 200, wallet


# --- the bulk: many hands over REST and over WebSocket ------------------------------------------


def _choose(rng: random.Random, legal: dict[str, Any]) -> dict[str, Any]:
    """A bot's move: mostly passive, sometimes a minimum raise or a fold (nobody shoves,
    so stacks last; top-ups refill the short)."""
    actions = legal["actions"]
    roll = rng.random()
    if roll < 0.08 and "fold" in actions and "check" not in actions:
        return {"action": "fold"}
    for aggressive in ("raise", "bet"):
        if roll > 0.85 and aggressive in actions:
            return {"action": aggressive, "amount": legal["min_to"]}
    return {"action": "check" if "check" in actions else "call"}


def _hands_finished(session: Session, table_id: int, names: list[str]) -> int:
    """The table's finished hands, from its players' hand histories (REST, paginated)."""
    ids = set()
    for name in names:
        path = "/api/v1/hands/?limit=200"
        while path:
            status, page = session.server.call("GET", path, session.tokens[name])
            assert status == 200, page
            ids.update(h["hand"] for h in page["results"] if h["table"] == table_id)
            path = page["next"] and page["next"].removeprefix(session.server.base)
    return len(ids)


def _play_over_rest(session: Session, table_id: int, names: list[str], hands: int) -> dict:
    """REST bots: whose turn it is comes from the public view's ``actor_seat``; that
    player's ``state`` gives the legal actions. Every 40 hands the player to act sits out
    (the server folds for them), and once out of the hand tops up and sits back in."""
    rng = random.Random(1414)
    seat_of = {}
    for name in names:
        seat_of[_sit(session, table_id, name)] = name
    done = {"actions": 0, "top_ups": 0, "sat_out": 0}
    start = time.monotonic()
    finished = 0
    while True:
        assert time.monotonic() - start < 600, "REST bots took too long"
        view = _view(session, table_id)
        # Hands are numbered from 1 and the next starts as one ends (no pause here).
        finished = view["hand"]["number"] - 1 if view["hand"] else finished
        if finished >= hands:
            return done
        for seat in view["seats"]:
            # Out of the running hand, a player who sat out tops up and comes back.
            if seat["state"] == "sitting_out" and not seat["in_hand"]:
                token = session.tokens[seat_of[seat["seat"]]]
                if seat["stack"] < 5_000:
                    _top_up(session, table_id, token, min(500, 5_000 - seat["stack"]), done)
                status, body = session.server.call(
                    "POST", f"/api/v1/tables/{table_id}/sit-in/", token, {}
                )
                assert status == 200, body
        if view["hand"] is None:  # between hands: the embedded beat (or a command) deals
            time.sleep(0.05)
            continue
        name = seat_of[_actor_seat(view)]
        token = session.tokens[name]
        mine = _view(session, table_id, token)
        if mine["you"]["legal_actions"] is None:  # the turn moved on meanwhile
            continue
        if finished and finished % 40 == 0 and done["sat_out"] < finished // 40:
            status, body = session.server.call(
                "POST", f"/api/v1/tables/{table_id}/sit-out/", token, {}
            )
            assert status == 200, body  # folds (or checks) for them: the hand goes on
            done["sat_out"] += 1
            continue
        move = {**_choose(rng, mine["you"]["legal_actions"]), "version": mine["version"]}
        status, body = session.server.call(
            "POST", f"/api/v1/tables/{table_id}/actions/", token, move
        )
        assert status == 200 or (status == 409 and body["code"] == "stale_version"), body
        done["actions"] += 1


def _top_up(session: Session, table_id: int, token: str, amount: int, done: dict) -> None:
    status, body = session.server.call(
        "POST", f"/api/v1/tables/{table_id}/top-up/", token, {"amount": amount}
    )
    assert status == 200, body
    done["top_ups"] += 1


async def _play_over_ws(session: Session, table_id: int, names: list[str], hands: int) -> dict:
    """WebSocket bots: each connects with ``?token=``, acts on the legal actions of its
    ``snapshot`` / ``private`` frames (once per table version), and the first one counts
    ``HandFinished`` in the updates."""
    rng = random.Random(2828)
    port = session.server.port
    stats = {"finished": 0, "acts": 0, "errors": []}
    stop = asyncio.Event()

    async def bot(name: str, counts: bool) -> None:
        url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/?token={session.tokens[name]}"
        async with websockets.connect(url, max_size=2**20) as ws:
            acted_at = -1
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=1)
                except TimeoutError:
                    continue
                frame = json.loads(raw)
                kind = frame.get("type")
                you = None
                if kind == "snapshot":
                    you = frame["view"]["you"]
                elif kind == "private":
                    you = frame["you"]
                elif kind == "update" and counts:
                    for group in frame["events"]:
                        for event in group.get("events", [group.get("event") or {}]):
                            if event.get("type") == "HandFinished":
                                stats["finished"] += 1
                    if stats["finished"] >= hands:
                        stop.set()
                elif kind == "error":
                    stats["errors"].append(frame["code"])
                version = frame.get("version", -1)
                if you and you.get("legal_actions") and version > acted_at:
                    acted_at = version
                    move = _choose(rng, you["legal_actions"])
                    await ws.send(
                        json.dumps(
                            {"type": "act", **move, "version": version, "key": uuid.uuid4().hex}
                        )
                    )
                    stats["acts"] += 1

    await asyncio.wait_for(
        asyncio.gather(*(bot(n, i == 0) for i, n in enumerate(names))), timeout=600
    )
    return stats


def test_two_hundred_hands_over_rest_and_websocket_under_make_run(lane: Session) -> None:
    rest_names, ws_names = ["rita", "rolf", "rosa"], ["willa", "walt", "wes"]
    for name in rest_names + ws_names:
        lane.user(name)
    rest_table, ws_table = lane.table(), lane.table()
    for name in ws_names:
        _sit(lane, ws_table, name, buy_in=5_000)
    ws_stats: dict[str, Any] = {}
    failure: list[BaseException] = []

    def ws_thread() -> None:
        try:
            ws_stats.update(asyncio.run(_play_over_ws(lane, ws_table, ws_names, HANDS_OVER_WS)))
        except BaseException as exc:  # reported below, in the test's thread
            failure.append(exc)

    thread = threading.Thread(target=ws_thread, daemon=True)
    thread.start()
    rest_stats = _play_over_rest(lane, rest_table, rest_names, HANDS_OVER_REST)
    thread.join(timeout=660)
    assert not failure, failure
    assert not thread.is_alive(), "the WebSocket bots did not finish"
    assert rest_stats["sat_out"] >= 2 and rest_stats["top_ups"] >= 1, rest_stats
    assert "internal_error" not in ws_stats["errors"], ws_stats
    assert _hands_finished(lane, rest_table, rest_names) >= HANDS_OVER_REST
    assert _hands_finished(lane, ws_table, ws_names) >= HANDS_OVER_WS
    assert HANDS_OVER_REST + HANDS_OVER_WS >= 200


def test_after_the_pause_between_hands_the_embedded_beat_deals_the_next(tmp_path) -> None:
    """With a pause (contracts: POKER_HAND_PAUSE_MS), no command follows a hand's end
    here (the bots only read), so the embedded beat's sweeper is what deals the next."""
    with _serve(tmp_path, POKER_HAND_PAUSE_MS="300") as paused:
        names = ["pia", "pat"]
        for name in names:
            paused.user(name)
        table = paused.table()
        _play_over_rest(paused, table, names, 5)
        assert _hands_finished(paused, table, names) >= 5
        assert not [s for s in paused.server.statuses if s >= 500], paused.server.statuses


def test_a_python_warning_while_serving_is_a_json_log_line(lane: Session) -> None:
    """A staff CSV report streams a synchronous iterator, which Django's ASGI handler warns
    about with Python's ``warnings``: that warning is logged as JSON like every other line,
    not printed to stderr as two plain-text lines."""
    cookies = lane.server.session_login("admin", lane.admin_password)
    lane.secrets.update(v for k, v in cookies.items() if k in {"sessionid", "csrftoken"})
    request = urllib.request.Request(
        f"{lane.server.base}/staff/reports/payments/?format=csv",
        headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())},
    )
    with urllib.request.urlopen(request, timeout=60) as resp:
        assert resp.status == 200 and resp.read().startswith(b"day,currency,")
    records = [json.loads(line) for line in lane.server.log_lines()]  # every line is JSON
    warned = [r for r in records if r["logger"] == "py.warnings"]
    assert any("StreamingHttpResponse" in r["msg"] for r in warned), warned


# --- what the session left behind --------------------------------------------------------------


def test_no_response_of_the_embedded_session_was_a_server_error(lane: Session) -> None:
    assert lane.server.statuses, "the session made no request"
    assert not [s for s in lane.server.statuses if s >= 500], lane.server.statuses


def test_ledger_and_event_store_are_clean_after_the_embedded_session(lane: Session) -> None:
    audit = manage(lane.server.env, "ledger_audit")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    verify = manage(lane.server.env, "verify_event_store")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_the_embedded_session_logs_no_secret_and_no_error(lane: Session) -> None:
    """Defect 3: a session login, tokens in WebSocket URLs, passwords... none in the log."""
    lane.user("sam")
    cookies = lane.server.session_login("sam", PASSWORD)
    lane.secrets.update(v for k, v in cookies.items() if k in {"sessionid", "csrftoken"})
    lane.secrets.add(cookies["csrfmiddlewaretoken"])

    async def one_ws() -> None:  # a token in the query string, as the protocol allows
        url = f"ws://127.0.0.1:{lane.server.port}/ws/tables/1/?token={lane.tokens['sam']}"
        async with websockets.connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"

    asyncio.run(one_ws())
    time.sleep(1)  # the server's log lines of that connection
    lines = lane.server.log_lines()
    assert any("/ws/tables/1/" in line for line in lines), "the WebSocket left no log line"
    leaks = [(s[:6], line) for line in lines for s in lane.secrets if s in line]
    assert not leaks, leaks[:3]
    for line in lines:
        record = json.loads(line)  # every line is JSON
        assert record["level"] not in ("ERROR", "CRITICAL"), line
        assert "Traceback" not in line, line
