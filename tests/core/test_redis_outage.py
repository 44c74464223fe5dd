"""Redis goes away and comes back: WebSockets degrade with a typed close, REST keeps working.

A live server (uvicorn, production mode) runs against a THROWAWAY redis-server started
here on a free port (the shared one is never touched). With Redis up a table socket gets
its snapshot. Redis is stopped: the open socket is told (an ``error`` frame
``service_unavailable``, then close code 4503), a new connection gets the same instead of
an HTTP 500, and a REST action still commits (200). Redis is started again on the same
port: new connections get their snapshot again. While it is down, a login still gets its
token (the login throttle counts per process) and ``/healthz`` names what failed.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.core.live_api import LiveApi, free_port, running_api

pytestmark = [pytest.mark.slow]

CLOSE_SERVICE_UNAVAILABLE = 4503
PASSWORD = "pw-Str0ng-enough!"  # the seeded players'
PATIENCE_S = 60  # how long a busy machine may take to notice; the test ends as soon as it does

_SEED_SCRIPT = """
from rest_framework.authtoken.models import Token
from core.services import user_register
from poker.commands.seating import table_create
table = table_create(
    name="Outage", variant="NT", small_blind=50, big_blind=100, min_buy_in=2000,
    max_buy_in=20000, max_seats=6, action_seconds=3600,
)
tokens = [
    Token.objects.create(user=user_register(username=name, password="pw-Str0ng-enough!")).key
    for name in ("ann", "ben")
]
print(table.pk, *tokens)
"""


class ThrowawayRedis:
    """A redis-server of this test's own, stopped and started again on one port."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.fail("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="outage-redis-")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.1)
        raise AssertionError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def _call(api: LiveApi, method: str, path: str, token: str, body: dict | None = None):
    request = urllib.request.Request(
        f"{api.base}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={
            **({"Authorization": f"Token {token}"} if token else {}),
            "Content-Type": "application/json",
            "Idempotency-Key": uuid.uuid4().hex,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _socket(api: LiveApi, table_id: int, token: str):
    return connect(
        f"ws://127.0.0.1:{api.port}/ws/tables/{table_id}/?token={token}",
        open_timeout=PATIENCE_S,
        close_timeout=5,
    )


def _expect_unavailable(ws) -> None:
    """The socket says why (a typed error frame) and closes with 4503."""
    frames = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            frames.append(json.loads(ws.recv(timeout=PATIENCE_S)))
    errors = [f for f in frames if f.get("type") == "error"]
    assert errors and errors[-1]["code"] == "service_unavailable", frames
    assert set(errors[-1]) >= {"code", "message", "extra"}
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_SERVICE_UNAVAILABLE


def _connect_refused_typed(api: LiveApi, table_id: int, token: str) -> None:
    """A new connection while Redis is down: a typed close (or a 503), never a 500."""
    try:
        ws = _socket(api, table_id, token)
    except InvalidStatus as refused:
        assert refused.response.status_code == 503
        return
    with ws:
        _expect_unavailable(ws)


def _connect_ok(api: LiveApi, table_id: int, token: str) -> dict:
    with _socket(api, table_id, token) as ws:
        frame = json.loads(ws.recv(timeout=PATIENCE_S))
    assert frame["type"] == "snapshot", frame
    return frame


@pytest.fixture
def redis_server():
    server = ThrowawayRedis()
    server.start()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def live_api(redis_server):
    with running_api("outage", REDIS_URL=redis_server.url) as api:
        yield api


def test_websockets_close_typed_while_redis_is_down_rest_still_commits_and_both_recover(
    live_api, redis_server
):
    seeded = live_api.manage("shell", "-c", _SEED_SCRIPT)
    assert seeded.returncode == 0, seeded.stderr
    table_id, *tokens = seeded.stdout.split()[-3:]
    table_id = int(table_id)
    live_api.start()
    for token in tokens:
        status, body = _call(
            live_api, "POST", f"/api/v1/tables/{table_id}/sit/", token, {"buy_in": 10_000}
        )
        assert status == 200, body

    # Redis up: a socket connects and stays open.
    with _socket(live_api, table_id, tokens[0]) as watcher:
        assert json.loads(watcher.recv(timeout=PATIENCE_S))["type"] == "snapshot"
        redis_server.stop()
        _expect_unavailable(watcher)  # the open socket is told, not left silently deaf
    _connect_refused_typed(live_api, table_id, tokens[1])

    # Logins still work (the login throttle counts in the process meanwhile), and the
    # health probe says which backend failed.
    status, body = _call(
        live_api, "POST", "/api/v1/auth/token/", "", {"username": "ann", "password": PASSWORD}
    )
    assert status == 200 and body["token"], body
    status, health = _call(live_api, "GET", "/healthz", "")
    assert status == 503, health
    assert not health["checks"]["cache"]["ok"] and not health["checks"]["login_throttle"]["ok"]

    # REST still commits: the player to act calls (or checks).
    state = {t: _call(live_api, "GET", f"/api/v1/tables/{table_id}/state/", t)[1] for t in tokens}
    actor = next(t for t, view in state.items() if (view.get("you") or {}).get("legal_actions"))
    actions = state[actor]["you"]["legal_actions"]["actions"]
    action = "check" if "check" in actions else "call"
    status, body = _call(
        live_api, "POST", f"/api/v1/tables/{table_id}/actions/", actor, {"action": action}
    )
    assert status == 200, body
    version_after = body["version"]

    # Redis back on the same port: new connections are accepted again.
    redis_server.start()
    deadline = time.monotonic() + PATIENCE_S
    while True:
        try:
            frame = _connect_ok(live_api, table_id, tokens[1])
            break
        except (ConnectionClosed, InvalidStatus, AssertionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    assert frame["version"] >= version_after  # the action made while Redis was down
    log = live_api.log()
    assert "Exception in ASGI application" not in log, log[-5000:]
    assert "channel layer unavailable" in log  # the outage was noticed and said
