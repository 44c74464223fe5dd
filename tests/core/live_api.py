"""A live API server for tests that must talk to the real thing over the network:
uvicorn serving the project in production mode (``DEBUG=0``, over plain http) on a
PostgreSQL database of its own, with its own channel prefix and task queue on Redis."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _admin(admin_url: str, statement: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(statement)


class LiveApi:
    """uvicorn serving the project on a database of its own."""

    def __init__(self, purpose: str = "fuzz") -> None:
        db = settings.DATABASES["default"]
        self.admin_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/postgres"
        # Named after this run's test database (and xdist worker), so concurrent runs
        # each have their own.
        test_db = db.get("TEST", {}).get("NAME") or f"test_{db['NAME']}"
        self.db_prefix = f"{test_db}{os.environ.get('PYTEST_XDIST_WORKER', '')}"
        self.db_name = f"{self.db_prefix}_{purpose}"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": (f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{self.db_name}"),
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "0",
            "CHANNEL_PREFIX": f"{purpose}{uuid.uuid4().hex[:10]}",
            "CELERY_QUEUE": f"{purpose}-{uuid.uuid4().hex[:10]}",
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = Path(tempfile.mkdtemp(prefix=f"live-{purpose}-")) / "server.log"

    def log(self) -> str:
        """What the server wrote to stderr (JSON log lines, uvicorn's own errors)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _admin(self, statement: str) -> None:
        _admin(self.admin_url, statement)

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def create_database(self) -> None:
        """A copy of this process's migrated template (a migration costs seconds; a copy
        of its result, a fraction of one)."""
        template = _migrated_template(self.admin_url, self.env["DATABASE_URL"], self.db_prefix)
        self._admin(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        self._admin(f'CREATE DATABASE "{self.db_name}" TEMPLATE "{template}"')

    def drop_database(self) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self._spawn(log)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"the server did not start:\n{self.log()[-5000:]}")

    def _spawn(self, log: Any) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(self.port),
             "--log-level", "warning"],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
            stderr=log,
        )  # fmt: skip

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@functools.cache
def _migrated_template(admin_url: str, database_url: str, prefix: str) -> str:
    """A database migrated from nothing, once per test process, dropped at its exit; live
    servers' databases are created from it."""
    name = f"{prefix}_template"
    _admin(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(admin_url, f'CREATE DATABASE "{name}"')
    url = database_url.rsplit("/", 1)[0] + f"/{name}"
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": url}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr
    atexit.register(_admin, admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return name


@contextlib.contextmanager
def running_api(purpose: str, **env: str) -> Iterator[LiveApi]:
    """A LiveApi with its database created (and dropped after); ``env`` overrides the
    server's environment. The caller starts the server when the data it needs is in."""
    api = LiveApi(purpose)
    api.env.update(env)
    api.create_database()
    try:
        yield api
    finally:
        api.stop()
        with contextlib.suppress(psycopg.Error):
            api.drop_database()
