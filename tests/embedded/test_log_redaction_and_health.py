"""One redaction step on the log handler, and /healthz's view of the periodic tasks."""

import io
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache

import core
from core.health import LAST_SWEEP_KEY, health_report
from core.logging import JsonFormatter, QuietPeriodicFilter, RedactFilter, RequestIdFilter
from poker.tasks import sweep_timeouts

ROOT = Path(__file__).resolve().parents[2]


def _emit(logger_name, msg, *args, **extra):
    """A record through the filters and formatter of the console handler, as configured."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    for name in settings.LOGGING["handlers"]["console"]["filters"]:
        factory = settings.LOGGING["filters"][name]
        kwargs = {k: v for k, v in factory.items() if k != "()"}
        handler.addFilter(
            {
                "core.logging.RequestIdFilter": RequestIdFilter,
                "core.logging.RedactFilter": RedactFilter,
                "core.logging.QuietPeriodicFilter": QuietPeriodicFilter,
            }[factory["()"]](**kwargs)
        )
    logger = logging.getLogger(logger_name)
    record = logger.makeRecord(logger_name, logging.INFO, __file__, 1, msg, args, None, extra=extra)
    handler.handle(record)
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_websocket_token_in_uvicorns_access_line_is_masked():
    token = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"
    [line] = _emit(
        "uvicorn.error",
        '%s - "WebSocket %s" [accepted]',
        "127.0.0.1:5000",
        f"/ws/tables/2/?token={token}&device=d1",
    )
    assert token not in json.dumps(line)
    assert "/ws/tables/2/?token=[redacted]&device=d1" in line["msg"]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("login failed: password=hunter2!", "hunter2!"),
        ('{"password": "s3cret-pw", "user": "a"}', "s3cret-pw"),
        ("Authorization: Token 0123456789abcdef0123456789", "0123456789abcdef0123456789"),
        ("Cookie: sessionid=abcd1234efgh; csrftoken=zyx987", "abcd1234efgh"),
        ("Cookie: sessionid=abcd1234efgh; csrftoken=zyx987", "zyx987"),
        ("X-Signature: t=1700000000,v1=5f1e2d3c4b5a", "5f1e2d3c4b5a"),
        ("dealt with seed=c0ffee1234567890", "c0ffee1234567890"),
    ],
)
def test_secrets_in_a_message_are_masked(text, secret):
    [line] = _emit("anything", "%s", text)
    assert secret not in json.dumps(line)


def test_secrets_in_extra_fields_and_tracebacks_are_masked():
    [line] = _emit("core.request", "request", password="pw-123456", path="/x/?token=tok-98765")
    assert "pw-123456" not in json.dumps(line) and "tok-98765" not in json.dumps(line)
    try:
        raise RuntimeError("bad signature=deadbeefcafe")
    except RuntimeError:
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(JsonFormatter())
        handler.addFilter(RedactFilter())
        logger = logging.getLogger("t")
        handler.handle(logger.makeRecord("t", logging.ERROR, __file__, 1, "x", (), sys.exc_info()))
    assert "deadbeefcafe" not in stream.getvalue()
    assert "signature=[redacted]" in stream.getvalue()


def test_celery_lines_about_a_periodic_task_are_debug_not_info():
    quiet = _emit("celery.beat", "Scheduler: Sending due task %s (%s)", "poker-sweep-timeouts",
                  "poker.sweep_timeouts")  # fmt: skip
    assert quiet == []
    loud = _emit("celery.app.trace", "Task %s[%s] succeeded", "handhistory.export", "abc")
    assert loud and loud[0]["level"] == "INFO"


@pytest.fixture
def no_sweep(db, monkeypatch):
    cache.delete(LAST_SWEEP_KEY)
    yield
    cache.delete(LAST_SWEEP_KEY)


def test_healthz_gives_a_fresh_process_time_for_its_first_sweep(no_sweep, monkeypatch):
    monkeypatch.setattr(core, "STARTED_AT", time.time())
    healthy, report = health_report()
    assert healthy, report
    assert report["periodic"]["backend"] == "starting (no sweep yet)"


def test_healthz_is_503_when_no_sweep_ran_since_the_grace_period(no_sweep, monkeypatch):
    monkeypatch.setattr(core, "STARTED_AT", time.time() - settings.PERIODIC_MAX_AGE_S - 1)
    healthy, report = health_report()
    assert not healthy
    assert "no shot-clock sweep" in report["periodic"]["error"]


def test_healthz_is_503_when_the_last_sweep_is_too_old(no_sweep, monkeypatch):
    monkeypatch.setattr(core, "STARTED_AT", time.time() - 3600)
    cache.set(LAST_SWEEP_KEY, time.time() - settings.PERIODIC_MAX_AGE_S - 5, timeout=None)
    assert not health_report()[0]
    sweep_timeouts()  # the clock runs again: the sweep's heartbeat
    healthy, report = health_report()
    assert healthy, report
    assert report["periodic"]["backend"].startswith("last sweep")


def test_a_request_object_in_extra_is_written_without_its_query_string_secret(rf):
    request = rf.get("/api/v1/tables/9/?token=tok-in-query-123")
    [line] = _emit("django.request", "Not Found: %s", request.path, request=request)
    assert "tok-in-query-123" not in json.dumps(line)
    assert "token=[redacted]" in line["request"]


def test_the_celery_pools_worker_exit_line_is_json():
    """Celery's pool (billiard) logs a worker killed by a signal on the "multiprocessing"
    logger, which it detaches from the root: without a handler of its own the line reached
    stderr as bare text through Python's last-resort handler."""
    script = (
        "import django; django.setup()\n"
        "from billiard import util\n"
        "util.get_logger()\n"
        "util.error('Process %r pid:%r exited with %r', 'ForkPoolWorker-2', 1758,"
        " 'signal 15 (SIGTERM)', exc_info=0)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1"}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]  # every line is JSON
    assert [(r["level"], r["logger"]) for r in records] == [("ERROR", "multiprocessing")]
    assert "exited with 'signal 15 (SIGTERM)'" in records[0]["msg"]
