"""The simulated room (``room_simulate``, ``manage.py simulate_room``): a small room plays
through the live table service, the stores verify afterwards, and the colluders' and
honest bots' behaviour is visible in the recorded events."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from fraud.simulation import RoomSpec, RoomTruth, bots, room_simulate
from fraud.simulation.pure import room_play
from fraud.simulation.room import (
    COLLUSION,
    HEADS_UP_STYLES,
    room_plan,
    schedule,
    seating,
    table_count,
)
from handhistory.models import Event, Hand
from poker.engine.betting import legal_actions
from poker.engine.events import event_from_dict
from poker.engine.state import HandState
from poker.engine.transitions import apply
from tests.poker.engine.engine_helpers import config, script, started
from tests.support.emptying import module_data

SPEC = RoomSpec(dump=1, soft=1, share=1, ring=1, friends=1, household=1, tight_passive=1)
PLAYERS, HANDS = 16, 240
#: A seed whose room has honest aggressive players (checked in the test that uses them).
SEED = 6
ACTIONS = ("PlayerFolded", "PlayerChecked", "PlayerCalled", "BetPlaced", "RaisedTo")

# One worker runs the module: the room below is played once, not once per test worker.
pytestmark = pytest.mark.xdist_group("fraud_room")


@pytest.fixture(scope="module")
def room(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """One small room played for the module's tests, its hands read back as
    (hand, [(state before, event, user id)]) per player action, with what the tests read
    of the stores: every test here is transactional and flushes the database after it,
    so nothing may be read from the database once the first one has run."""
    with django_db_blocker.unblock(), module_data():
        ticks: list[tuple[int, int]] = []
        truth = room_simulate(players=PLAYERS, hands=HANDS, seed=SEED, schemes=SPEC,
                              progress=lambda done, total: ticks.append((done, total)))  # fmt: skip
        hands = []
        for hand in Hand.objects.filter(ended_at__isnull=False).order_by("pk"):
            state: HandState | None = None
            actions = []
            for row in Event.objects.filter(stream=hand.stream).order_by("seq"):
                event = event_from_dict(row.payload)
                if row.payload["type"] in ACTIONS:
                    actions.append((state, event, row.actor_id, row.actor_kind))
                state = apply(state, event)
            hands.append((hand, actions))
        addresses = list(
            Event.objects.filter(actor_kind="player")
            .values_list("actor_id", "client_ip", "device_id")
            .distinct()
        )
        checks = StringIO()
        call_command("verify_event_store", stdout=checks, stderr=checks)  # raises on a problem
        call_command("ledger_audit", stdout=checks, stderr=checks)  # exits 1 on a problem
        yield {"truth": truth, "hands": hands, "ticks": ticks, "addresses": addresses,
               "checks": checks.getvalue()}  # fmt: skip
        connection.close()


def _group(truth: RoomTruth, scheme: str) -> dict[str, Any]:
    return next(g for g in truth.groups if g["scheme"] == scheme)


@pytest.mark.django_db(transaction=True)
def test_room_plays_its_hands_and_the_event_store_and_ledger_verify(room: dict[str, Any]) -> None:
    truth = room["truth"]
    assert truth.hands >= HANDS and truth.errors == 0
    assert truth.tables == table_count(PLAYERS) and len(truth.players) == PLAYERS
    assert room["ticks"] and room["ticks"][-1] == (HANDS, HANDS)
    assert "Event store OK." in room["checks"]
    assert "OK: every check passed." in room["checks"]


@pytest.mark.django_db(transaction=True)
def test_truth_holds_every_group_with_its_size_and_the_dumping_direction(
    room: dict[str, Any],
) -> None:
    truth = room["truth"]
    sizes = {g["scheme"]: len(g["players"]) for g in truth.groups}
    assert sizes == {"chip_dumping": 2, "soft_play": 2, "card_sharing": 2, "ring": 3,
                     "friends": 2, "household": 2, "tight_passive": 2}  # fmt: skip
    for g in truth.groups:
        assert g["players"] == sorted(g["players"])
    dump = _group(truth, "chip_dumping")
    assert sorted(dump["direction"]) == dump["players"]
    styles = {p["user_id"]: p["style"] for p in truth.players}
    assert {styles[u] for u in _group(truth, "tight_passive")["players"]} == {"tight_passive"}
    assert json.loads(json.dumps(truth.to_json()))["seed"] == SEED


def _addresses(room: dict[str, Any], user_ids: list[int], field: str) -> dict[int, set[str]]:
    column = ("actor_id", "client_ip", "device_id").index(field)
    seen: dict[int, set[str]] = defaultdict(set)
    for row in room["addresses"]:
        if row[0] in user_ids:
            seen[row[0]].add(row[column])
    return seen


@pytest.mark.django_db(transaction=True)
def test_friends_share_an_ip_and_a_household_also_a_device_in_the_events(
    room: dict[str, Any],
) -> None:
    truth = room["truth"]
    friends = _group(truth, "friends")["players"]
    ips = _addresses(room, friends, "client_ip")
    assert len(ips[friends[0]]) == 1 and ips[friends[0]] == ips[friends[1]]
    devices = _addresses(room, friends, "device_id")
    assert devices[friends[0]] != devices[friends[1]]
    household = _group(truth, "household")["players"]
    for field in ("client_ip", "device_id"):
        seen = _addresses(room, household, field)
        assert len(seen[household[0]]) == 1 and seen[household[0]] == seen[household[1]]
    others = [p["user_id"] for p in truth.players if p["user_id"] not in friends + household]
    assert len({next(iter(v)) for v in _addresses(room, others, "client_ip").values()}) == len(
        others
    )


def _both_in(actions: list[Any], hand: Hand, pair: list[int]) -> bool:
    return all(u in hand.player_ids for u in pair)


@pytest.mark.django_db(transaction=True)
def test_soft_play_partners_heads_up_never_bet_or_raise_into_each_other(
    room: dict[str, Any],
) -> None:
    pair = _group(room["truth"], "soft_play")["players"]
    together = heads_up = 0
    for hand, actions in room["hands"]:
        if not _both_in(actions, hand, pair):
            continue
        together += 1
        index = [hand.player_ids.index(u) for u in pair]
        for state, event, user, _ in actions:
            alone = [i for i in range(state.player_count) if state.active[i]] == sorted(index)
            if user in pair and alone:
                heads_up += 1
                assert type(event).__name__ not in ("BetPlaced", "RaisedTo"), (hand.pk, event)
    assert together > 0, "the soft-play pair never met"


@pytest.mark.django_db(transaction=True)
def test_card_sharers_are_both_in_a_preflop_pot_only_to_squeeze_a_third_player(
    room: dict[str, Any],
) -> None:
    truth = room["truth"]
    together = 0
    for group in (_group(truth, "card_sharing"), _group(truth, "ring")):
        members = group["players"]
        for hand, actions in room["hands"]:
            dealt = [u for u in members if u in hand.player_ids]
            if len(dealt) < 2:
                continue
            together += 1
            voluntary: list[int] = []  # users who called, bet or raised preflop, in order
            for state, event, user, _ in actions:
                if state.street == 0 and type(event).__name__ in (
                    "PlayerCalled",
                    "BetPlaced",
                    "RaisedTo",
                ):
                    voluntary.append(user)
            sharers_in = [u for u in dict.fromkeys(voluntary) if u in members]
            if len(sharers_in) >= 2:
                first = min(voluntary.index(u) for u in sharers_in[1:])
                assert any(u not in members for u in voluntary[:first]), (hand.pk, voluntary)
    assert together > 0, "no card sharers were dealt in together"


@pytest.mark.django_db(transaction=True)
def test_honest_aggressive_players_bet_and_raise(room: dict[str, Any]) -> None:
    truth = room["truth"]
    grouped = {u for g in truth.groups if g["scheme"] in COLLUSION for u in g["players"]}
    aggressive = {p["user_id"] for p in truth.players if p["style"] == "aggressive"} - grouped
    assert aggressive, "the seed's room has no honest aggressive player: pick another SEED"
    kinds = [
        type(e).__name__
        for _, actions in room["hands"]
        for _, e, u, _ in actions
        if u in aggressive
    ]
    assert kinds.count("RaisedTo") + kinds.count("BetPlaced") >= 0.1 * len(kinds)


@pytest.mark.django_db(transaction=True)
def test_every_player_action_is_the_players_own_not_the_systems(room: dict[str, Any]) -> None:
    """Bots fold before they leave: only a leave forced after a few hands is system play."""
    kinds = [kind for _, actions in room["hands"] for *_, kind in actions]
    assert kinds.count("system") <= 0.02 * len(kinds)


# --- the plan and the bots, without the database ---------------------------------------------


def test_one_seed_gives_one_room() -> None:
    first, second = (room_plan(players=60, seed=3, spec=RoomSpec()) for _ in range(2))
    assert first == second
    assert schedule(first, hands=5000, tables=11, seed=3) == schedule(
        second, hands=5000, tables=11, seed=3
    )
    assert room_plan(players=60, seed=4, spec=RoomSpec()) != first


def test_colluding_groups_and_friends_share_a_table_most_sessions() -> None:
    plan = room_plan(players=60, seed=3, spec=RoomSpec())
    rng = random.Random(1)
    lineups = [seating(plan, table_count(60), rng) for _ in range(200)]
    for group in plan.groups:
        together = sum(any(set(group.members) <= set(t) for t in tables) for tables in lineups)
        if group.scheme in ("household", "tight_passive"):
            assert together < 100, group
        else:
            assert together >= 0.7 * 200, group
    for tables in lineups:
        seated = [p for t in tables for p in t]
        assert len(seated) == len(set(seated)) and all(2 <= len(t) <= 6 for t in tables if t)


def test_heads_up_pairs_play_a_table_of_their_own_most_sessions() -> None:
    plan = room_plan(players=12, seed=3, spec=RoomSpec(dump=1, soft=0, share=0, ring=0, friends=0,
                                                       household=0, tight_passive=0, heads_up=2))  # fmt: skip
    pairs = [g.members for g in plan.groups if g.scheme == "heads_up"]
    styles = {p.index: p.style for p in plan.players}
    assert [tuple(styles[m] for m in pair) for pair in pairs] == list(HEADS_UP_STYLES[:2])
    rng = random.Random(1)
    lineups = [seating(plan, 4, rng) for _ in range(200)]
    for pair in pairs:
        alone = sum(tuple(sorted(pair)) in tables for tables in lineups)
        assert alone >= 0.7 * 200, pair
    for tables in lineups:
        seated = [p for t in tables for p in t]
        assert len(seated) == len(set(seated)) and all(2 <= len(t) <= 6 for t in tables if t)


def test_pure_room_plays_the_plan_on_the_engine_alike_for_one_seed() -> None:
    spec = RoomSpec(dump=1, soft=0, share=0, ring=0, friends=0, household=0, tight_passive=0,
                    heads_up=1)  # fmt: skip
    plan = room_plan(players=6, seed=4, spec=spec)
    truth, facts = room_play(plan, hands=150, tables=2, seed=4)
    again = room_play(plan, hands=150, tables=2, seed=4)[1]
    assert truth.hands == len(facts) == 150 and truth.tables == 2
    assert [f.players for f in facts] == [f.players for f in again]
    assert [f.pairs for f in facts] == [f.pairs for f in again]
    ids = {p["user_id"] for p in truth.players}
    assert all(2 <= len(f.players) <= 6 and set(f.players) <= ids for f in facts)


def test_a_short_stacker_sits_with_a_short_stack_and_the_others_with_100_big_blinds() -> None:
    assert bots.STYLES["short_stack"].buy_in_bb == 25
    assert {s.buy_in_bb for name, s in bots.STYLES.items() if name != "short_stack"} == {100}
    assert {"station", "maniac", "nit", "short_stack"} <= set(bots.HONEST_STYLES)


def test_ring_spec_parses_and_refuses_unknown_schemes() -> None:
    assert RoomSpec.parse("dump:1,ring:2") == RoomSpec(dump=1, ring=2)
    with pytest.raises(ValueError, match="bad ring spec"):
        RoomSpec.parse("dumping:1")


def _decide(state: HandState, me: int, style: str = "tight", relations: dict[int, str] | None = None,
            memory: bots.HandMemory | None = None, seed: int = 0) -> tuple[str, int | None]:  # fmt: skip
    legal = legal_actions(state)
    assert legal is not None and legal.actor == me
    seat = bots.Seat(me=me, style=bots.STYLES[style], relations=relations or {})
    return bots.decide(
        state, seat, legal, memory or bots.HandMemory(hand_id=1), random.Random(seed)
    )


def test_honest_players_raise_strong_hands_against_anyone() -> None:
    # 3 players: 0 small blind, 1 big blind, 2 button acts first preflop with aces.
    state, _ = started(config((10_000,) * 3), "7c2d", "8h3s", "AsAh")
    raises = sum(_decide(state, 2, style, seed=s)[0] == "raise" for style in ("tight", "aggressive")
                 for s in range(20))  # fmt: skip
    assert raises >= 30


def test_chip_dumper_bets_big_and_folds_to_the_receivers_raise() -> None:
    state, _ = started(config((10_000, 10_000)), "AsAh", "7c2d")  # heads-up: 1 is the button (SB)
    memory = bots.HandMemory(hand_id=1)
    memory.dumping[(1, 0)] = True
    action, amount = _decide(state, 1, relations={0: bots.DUMPS_TO}, memory=memory)
    assert action == "raise" and amount is not None and amount >= 1_500
    memory.record(0, 1, action)
    state, _ = script(state, f"1 raise {amount}")
    receiver = _decide(state, 0, relations={1: bots.DUMPED_TO}, memory=memory)
    assert receiver[0] == "raise"
    memory.record(0, 0, "raise")
    state, _ = script(state, f"0 raise {receiver[1]}")
    assert _decide(state, 1, relations={0: bots.DUMPS_TO}, memory=memory) == ("fold", None)


def test_soft_player_folds_a_strong_hand_to_the_partners_bet_heads_up() -> None:
    state, _ = started(config((10_000, 10_000)), "QsQh", "7c2d")
    state, _ = script(state, "1 call", "0 check", "board 2c5d9h", "0 check", "1 bet 300")
    assert _decide(state, 0, relations={1: bots.SOFT}) == ("fold", None)
    state, _ = started(config((10_000, 10_000)), "QsQh", "7c2d")
    state, _ = script(state, "1 call")
    assert _decide(state, 0, relations={1: bots.SOFT}, style="aggressive") == ("check", None)


def test_weaker_card_sharer_folds_preflop() -> None:
    state, _ = started(config((10_000,) * 3), "7c2d", "8h3s", "KsKh")
    assert _decide(state, 2, relations={0: bots.SHARES}, style="station")[0] != "fold"
    state, _ = script(state, "2 call")
    assert _decide(state, 0, relations={2: bots.SHARES}, style="station") == ("fold", None)


@pytest.mark.django_db(transaction=True)
def test_command_writes_the_truth_and_prints_the_summary(tmp_path: Any) -> None:
    path = tmp_path / "truth.json"
    out = StringIO()
    call_command("simulate_room", "--players", "8", "--hands", "30", "--seed", "11", "--rings",
                 "dump:1,soft:0,share:0,ring:0,friends:1,household:0,tight_passive:0",
                 "--truth", str(path), "--no-progress", stdout=out)  # fmt: skip
    truth = json.loads(path.read_text())
    assert truth["seed"] == 11 and [g["scheme"] for g in truth["groups"]] == [
        "chip_dumping",
        "friends",
    ]
    assert {p["username"] for p in truth["players"]} == {f"sim11-{n}" for n in range(1, 9)}
    assert "Played" in out.getvalue() and "hands/s" in out.getvalue()
