"""`make run` on a bare machine: SQLite, in-memory channel layer, eager Celery, and it says so."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _embedded_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"}
    }
    env.update(DEBUG="1", EMBEDDED_DB_PATH=str(tmp_path / "db.sqlite3"))
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.slow
def test_embedded_mode_migrates_seeds_serves_and_announces_its_backends(tmp_path):
    env = _embedded_env(tmp_path)
    migrate = _manage(env, "migrate", "--noinput")
    assert migrate.returncode == 0, migrate.stderr
    seed = _manage(env, "seed_demo")
    assert seed.returncode == 0, seed.stderr
    assert "Admin user created: admin / " in seed.stdout
    again = _manage(env, "seed_demo")  # idempotent
    assert again.returncode == 0 and "exists" in again.stdout

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        banner = server.stdout.readline()
        assert "database=SQLite (embedded" in banner
        assert "in-memory channel layer" in banner
        assert "Celery eager" in banner
        where = server.stdout.readline()
        assert "/admin/" in where and "/api/docs/" in where and "/healthz" in where
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
                    body = json.loads(resp.read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        assert body["status"] == "ok"
        assert body["checks"]["database"]["backend"] == "sqlite"
        assert body["checks"]["channel_layer"]["backend"] == "InMemoryChannelLayer"
        assert body["checks"]["broker"]["backend"] == "eager"
    finally:
        server.terminate()
        server.wait(timeout=20)
    # Stopping `serve` stops the server it runs: nothing is left listening.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_production_mode_refuses_to_start_without_a_secret_key(tmp_path):
    env = _embedded_env(tmp_path)
    env["DEBUG"] = "0"
    result = _manage(env, "check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr
