"""`make run`'s server as a subprocess, driven over its real protocols (HTTP, WebSocket).

The environment is exactly the one ``make run`` gives ``manage.py``: no ``DATABASE_URL``
nor ``REDIS_URL`` (so SQLite, the in-memory channel layer, eager Celery and the embedded
beat), ``DEBUG=1``, plus only the database file (in the test's tmp dir), a free port and
the pause between hands (docs: ``POKER_HAND_PAUSE_MS``).
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.server import listening_socket, serve_command

ROOT = Path(__file__).resolve().parents[2]

#: Variables of the test run that ``make run`` does not set (the suite's services, its
#: own queue and key prefixes): none may leak into the embedded server.
_NOT_IN_MAKE_RUN = {
    "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "CELERY_QUEUE", "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND", "CHANNEL_PREFIX", "TEST_DATABASE_NAME", "DJANGO_SETTINGS_MODULE",
}  # fmt: skip


def free_port() -> int:
    """A port free now, for what cannot be handed a socket (``make run PORT=...``)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def embedded_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _NOT_IN_MAKE_RUN}
    env.update(DEBUG="1", EMBEDDED_DB_PATH=str(tmp_path / "db.sqlite3"), POKER_HAND_PAUSE_MS="0")
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def wait_for(what: str, check: Any, seconds: float = 120, every: float = 0.2) -> Any:
    """``check()``'s first truthy value, polled until ``seconds`` pass (then it fails)."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


class Server:
    """``manage.py serve`` on its own port; its stdout and stderr are kept in files."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.sock = listening_socket()
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.stdout = logs / "serve.out"
        self.stderr = logs / "serve.err"
        self.proc: subprocess.Popen[bytes] | None = None
        #: Every HTTP status this client received, by status.
        self.statuses: Counter[int] = Counter()

    def start(self, seconds: float = 120) -> None:
        with self.stdout.open("ab") as out, self.stderr.open("ab") as err:
            self.proc = subprocess.Popen(
                serve_command(self.sock), pass_fds=[self.sock.fileno()],
                cwd=ROOT, env=self.env, stdout=out, stderr=err, start_new_session=True,
            )  # fmt: skip

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.stderr.read_text()
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2):
                    return True
            except OSError:
                return False

        wait_for("the server to answer /healthz", up, seconds)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything it started
        self.proc.wait(timeout=10)

    def log_lines(self) -> list[str]:
        return self.stderr.read_text(errors="replace").splitlines()

    def health(self) -> tuple[int, dict[str, Any]]:
        return self.call("GET", "/healthz")

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        *,
        key: str | None = None,
        opener: urllib.request.OpenerDirector | None = None,
    ) -> tuple[int, Any]:
        """One JSON request; (status, decoded body). POSTs get a fresh Idempotency-Key."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        if method != "GET":
            headers["Idempotency-Key"] = key or uuid.uuid4().hex
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers=headers,
        )
        try:
            with (opener or urllib.request.build_opener()).open(request, timeout=60) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        self.statuses[status] += 1
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def register(self, username: str, password: str) -> str:
        """Registers over REST and returns the account's API token."""
        status, body = self.call(
            "POST", "/api/v1/auth/register/", body={"username": username, "password": password}
        )
        assert status == 201, body
        return self.token(username, password)

    def token(self, username: str, password: str) -> str:
        status, body = self.call(
            "POST", "/api/v1/auth/token/", body={"username": username, "password": password}
        )
        assert status == 200, body
        return body["token"]

    def session_login(self, username: str, password: str) -> dict[str, str]:
        """Logs in at /login/ as a browser does (CSRF cookie and form field); returns the
        cookies the server set (the session id among them)."""
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(f"{self.base}/login/", timeout=30) as resp:
            page = resp.read().decode()
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert match, "no CSRF field on /login/"
        form = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": match.group(1)}
        ).encode()
        request = urllib.request.Request(
            f"{self.base}/login/", data=form, headers={"Referer": f"{self.base}/login/"}
        )
        with opener.open(request, timeout=30) as resp:
            self.statuses[resp.status] += 1
        cookies = {c.name: c.value for c in jar}
        assert "sessionid" in cookies, cookies
        return {**cookies, "csrfmiddlewaretoken": match.group(1)}
