"""``manage.py serve`` as a real subprocess on the test database, for tests that kill or
drive a running server (crash recovery, the browser tests)."""

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def listening_socket() -> socket.socket:
    """A TCP socket on a port the system picks, bound and listening, for ``serve --fd``.

    The test keeps it open for the server's whole life, restarts included: no other server
    (another test, another run on the machine) can take the port between choosing it and
    serving on it, and no health check can be answered by someone else's server.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve_command(sock: socket.socket) -> list[str]:
    """``manage.py serve`` on ``sock`` (pass it with ``pass_fds=[sock.fileno()]``)."""
    port = str(sock.getsockname()[1])
    return [sys.executable, "manage.py", "serve", "--port", port, "--fd", str(sock.fileno())]


class Server:
    """`manage.py serve` as a real subprocess on the test database."""

    def __init__(self):
        db = settings.DATABASES["default"]
        self.sock = listening_socket()
        self.port = self.sock.getsockname()[1]
        self.env = {
            **os.environ,
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "DEBUG": "1",
        }
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            serve_command(self.sock), pass_fds=[self.sock.fileno()],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 120  # a slow machine, two cores, celery starting too
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("server did not start")

    def kill(self):
        """SIGKILL the server and everything it started: a crash, no graceful shutdown."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        if self.proc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    @staticmethod
    def _headers(token, key):
        return {
            "Authorization": f"Token {token}",
            "Content-Type": "application/json",
            "Idempotency-Key": key or uuid.uuid4().hex,
        }

    def call(self, method, path, token, body=None, key=None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers=self._headers(token, key),
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def send(self, path, token, body, key):
        """POSTs without reading the reply: the connection, for the caller to drop."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("POST", path, body=json.dumps(body), headers=self._headers(token, key))
        return conn
