"""Serve HTTP + WebSockets (ASGI, uvicorn), with a Celery worker and beat when a broker
is configured. Prints which backends are in use and where to go."""

from __future__ import annotations

import logging
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import uvicorn
from celery import current_app
from django.conf import settings
from django.core.management.base import BaseCommand

logger = logging.getLogger(__name__)


def _die_with_parent() -> None:
    """Linux: the child gets SIGTERM when ``serve`` dies, even by SIGKILL, so a crashed
    server never leaves orphan workers consuming tasks."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: rely on the finally-block below
        pass


#: Tasks the embedded beat runs in a thread of their own. An audit pass can take minutes,
#: and the shot clock's sweeper, due every second, must not wait behind it; audits only
#: read (one snapshot, which on SQLite's WAL blocks no writer) and write their run row, so
#: they can run beside it. Other tasks write and keep running in turn, as before.
_THREADED_TASKS = {"audit.run"}


def _beat_call(entry: dict[str, Any]) -> None:
    """Calls one CELERY_BEAT_SCHEDULE entry's task with its ``args``/``kwargs``, as beat
    would send it; a failure is logged, never raised (the next interval tries again)."""
    from django.db import close_old_connections

    try:
        current_app.tasks[str(entry["task"])](*entry.get("args", ()), **entry.get("kwargs", {}))
    except Exception:
        logger.exception("embedded beat task failed", extra={"task": entry["task"]})
    finally:
        close_old_connections()


def _embedded_beat() -> None:
    """Calls each CELERY_BEAT_SCHEDULE entry on its interval, forever (daemon thread).

    The tasks are looked up in the project's app (every thread's default) once its task
    modules are imported: autodiscovery is lazy (a worker does it at start, but a process
    that only serves never would), and nothing else here imports ``poker.tasks``...
    """
    current_app.loader.import_default_modules()

    entries = settings.CELERY_BEAT_SCHEDULE
    schedule = {name: float(entry["schedule"]) for name, entry in entries.items()}  # type: ignore[arg-type]  # the beat schedule's entries are plain dicts in settings
    due = dict.fromkeys(schedule, 0.0)
    running: dict[str, threading.Thread] = {}
    while True:
        now = time.monotonic()
        for name, interval in schedule.items():
            if now < due[name] or (name in running and running[name].is_alive()):
                continue
            due[name] = now + interval
            if entries[name]["task"] not in _THREADED_TASKS:
                _beat_call(entries[name])
            else:
                running[name] = threading.Thread(
                    target=_beat_call, args=(entries[name],), name=f"beat-{name}", daemon=True
                )
                running[name].start()
        time.sleep(0.25)


def _asgi_path() -> str:
    """``settings.ASGI_APPLICATION`` (``package.module.name``) as uvicorn names an app."""
    module, _, name = settings.ASGI_APPLICATION.rpartition(".")
    return f"{module}:{name}"


def _serve(host: str, port: int, *, workers: int, fd: int | None) -> None:
    """uvicorn on ``host:port``, or on the inherited listening socket ``fd``."""
    options: dict[str, Any] = {"access_log": False, "ws_max_size": 65536, "log_config": None}
    if fd is None:
        uvicorn.run(_asgi_path(), host=host, port=port, workers=workers, **options)
        return
    sock = socket.socket(fileno=fd)  # family and type read from the socket itself
    config = uvicorn.Config(_asgi_path(), host=host, port=port, **options)
    uvicorn.Server(config).run(sockets=[sock])


class Command(BaseCommand):
    help = "Run the ASGI server (and Celery worker + beat when REDIS_URL is set)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--workers", type=int, default=1)
        parser.add_argument(
            "--fd",
            type=int,
            default=None,
            help="serve on this inherited TCP socket, already bound and listening (one "
            "worker): whoever bound it keeps the port, so no other server can take it",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        host, port = options["host"], options["port"]
        self.stdout.write(settings.BACKENDS_SUMMARY)
        base = f"http://{host}:{port}"
        self.stdout.write(
            f"Serving on {base}  ->  admin: {base}/admin/  API docs: {base}/api/docs/  "
            f"health: {base}/healthz"
        )
        children: list[subprocess.Popen[bytes]] = []
        if settings.CELERY_TASK_ALWAYS_EAGER:
            # No broker, so no beat: run the periodic tasks (the shot clock sweeper) here.
            threading.Thread(target=_embedded_beat, name="embedded-beat", daemon=True).start()
            self.stdout.write("Periodic tasks run in-process (embedded beat).")
        else:
            celery = [sys.executable, "-m", "celery", "-A", "config"]
            children.append(
                subprocess.Popen(
                    [*celery, "worker", "--loglevel=INFO", "-c", "2"], preexec_fn=_die_with_parent
                )
            )
            # Beat keeps its schedule's state in var/, which a fresh checkout lacks.
            settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
            beat_file = str(settings.VAR_DIR / "celerybeat-schedule")
            children.append(
                subprocess.Popen(
                    [*celery, "beat", "--loglevel=INFO", "--schedule", beat_file],
                    preexec_fn=_die_with_parent,
                )
            )
            self.stdout.write("Celery worker and beat started.")
        self.stdout.flush()
        try:
            # In-process, so SIGTERM/SIGINT reach uvicorn's own graceful shutdown and the
            # finally-block below then stops the Celery children: nothing is orphaned.
            _serve(host, port, workers=options["workers"], fd=options["fd"])
        finally:
            for child in children:
                child.send_signal(signal.SIGTERM)
            for child in children:
                child.wait(timeout=15)
