"""Health probes for the database, the cache/channel layer, the task broker, the
periodic tasks (the shot clock's sweeper) and which store the login throttle counts in."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import caches
from django.db import connection

import core
from core.throttling import login_throttle_health

#: The cache key where the shot-clock sweeper records when it last ran (a wall-clock
#: time: the sweeping process and the one answering /healthz may differ).
LAST_SWEEP_KEY = "periodic:last-sweep"


def record_sweep() -> None:
    """Called by every sweep: the heartbeat of the periodic tasks (worker and beat)."""
    caches["default"].set(LAST_SWEEP_KEY, time.time(), timeout=None)


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def _check_cache() -> str:
    cache = caches["default"]
    key = f"healthz:{uuid.uuid4().hex}"
    cache.set(key, "1", timeout=5)
    if cache.get(key) != "1":
        raise RuntimeError("cache round-trip failed")
    cache.delete(key)
    return type(cache).__name__


def _check_channel_layer() -> str:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")

    async def round_trip() -> dict[str, object]:
        # One event loop for the whole trip: a pub/sub layer's subscription lives in the
        # loop that made it.
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "health.ping"})
        return dict(await asyncio.wait_for(layer.receive(channel), 5))

    message = async_to_sync(round_trip)()
    if message.get("type") != "health.ping":
        raise RuntimeError("channel layer round-trip failed")
    return type(layer).__name__


def _check_broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        return str(conn.transport.driver_type)


def _check_periodic() -> str:
    """The periodic tasks are alive when the sweeper (due every second) ran recently.

    The age counts from the later of the last sweep and this process's start, so a
    process that just started (whose clock may not have swept yet, or whose cache holds
    an old sweep from before a restart) gets ``PERIODIC_MAX_AGE_S`` of grace.
    """
    last = caches["default"].get(LAST_SWEEP_KEY)
    now = time.time()
    age = now - max(float(last or 0.0), core.STARTED_AT)
    limit = settings.PERIODIC_MAX_AGE_S
    if age > limit:
        since = f"{now - float(last):.1f} s" if last else "ever (since start)"
        raise RuntimeError(f"no shot-clock sweep for {since}; limit {limit} s")
    return f"last sweep {now - float(last):.1f} s ago" if last else "starting (no sweep yet)"


CHECKS: dict[str, Callable[[], str]] = {
    "database": _check_database,
    "cache": _check_cache,
    "channel_layer": _check_channel_layer,
    "broker": _check_broker,
    "periodic": _check_periodic,
    "login_throttle": login_throttle_health,
}


def health_report() -> tuple[bool, dict[str, dict[str, object]]]:
    """Runs every check; returns (all ok, per-component status with timings)."""
    report: dict[str, dict[str, object]] = {}
    healthy = True
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            backend = check()
            report[name] = {"ok": True, "backend": backend}
        except Exception as exc:  # a probe reports failures, it never raises
            healthy = False
            report[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:200]}
        report[name]["ms"] = round((time.perf_counter() - started) * 1000, 2)
    return healthy, report
