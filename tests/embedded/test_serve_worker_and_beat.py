"""`manage.py serve` with PostgreSQL and Redis: its Celery worker and beat start on a fresh
checkout, log JSON lines like the server, keep quiet while idle, and /healthz sees the
periodic tasks die.

The server runs on this test's database, with a queue and a key prefix of its own, so the
other runs sharing the broker neither take its tasks nor refresh its heartbeat.
"""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from tests.embedded.server import Server, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

MAX_AGE_S = 5


def _children(pid: int) -> dict[int, str]:
    """The processes ``pid`` started: their pid and command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found[int(entry.name)] = cmdline
    return found


@pytest.fixture
def server(tmp_path):
    db = settings.DATABASES["default"]
    run = uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "DEBUG": "1",
        "LOG_LEVEL": "INFO",
        "CELERY_QUEUE": f"embed-serve-{run}",
        "CHANNEL_PREFIX": f"embed-serve-{run}",
        # A fresh checkout: no var/ yet (beat keeps its schedule file there).
        "VAR_DIR": str(tmp_path / "checkout" / "var"),
        "PERIODIC_MAX_AGE_S": str(MAX_AGE_S),
    }
    env.pop("PYTEST_XDIST_WORKER", None)  # the prefix above is already this run's own
    server = Server(env, tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _periodic(server: Server) -> tuple[int, dict]:
    status, body = server.health()
    return status, body["checks"]["periodic"]


def test_serve_with_a_broker_runs_beat_on_a_fresh_checkout_logs_json_and_health_sees_it_die(
    server,
):
    # Defect 13: beat starts without var/ and the sweeper runs (its heartbeat is seen).
    wait_for(
        "a sweep by the worker, scheduled by beat",
        lambda: str(_periodic(server)[1].get("backend", "")).startswith("last sweep"),
        seconds=120,
    )
    assert (Path(server.env["VAR_DIR"]) / "celerybeat-schedule").exists() or any(
        Path(server.env["VAR_DIR"]).glob("celerybeat-schedule*")
    )
    # Defect 9: idle sweeps (one a second) add no line at INFO or above.
    before = len(server.log_lines())
    time.sleep(6)
    idle = server.log_lines()[before:]
    loud = [line for line in idle if json.loads(line)["level"] not in ("DEBUG",)]
    assert not loud, loud[:5]
    # ...and every line written so far, the worker's and beat's included, is JSON.
    lines = server.log_lines()
    loggers = {json.loads(line)["logger"] for line in lines}
    assert any(name.startswith("celery") for name in loggers), loggers
    # Defect 13: beat killed, the clock stops and /healthz says so.
    beats = [pid for pid, cmd in _children(server.proc.pid).items() if " beat " in f"{cmd} "]
    assert len(beats) == 1, _children(server.proc.pid)
    os.kill(beats[0], signal.SIGKILL)
    _status, periodic = wait_for(
        "/healthz to notice the dead clock",
        lambda: (r := _periodic(server))[0] == 503 and r,
        seconds=MAX_AGE_S + 30,
        every=0.5,
    )
    assert periodic["ok"] is False and "no shot-clock sweep" in periodic["error"], periodic
