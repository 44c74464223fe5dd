"""Project code on SQLite (the embedded mode) from a test on PostgreSQL: a subprocess with
the embedded settings and a database file of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def embedded_env(tmp_path: Path) -> dict[str, str]:
    """This environment without the services, so the settings fall back to SQLite."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DEBUG="1", EMBEDDED_DB_PATH=str(tmp_path / "embedded.sqlite3"))
    return env


def shell_on_sqlite(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Migrates a fresh SQLite database and runs ``script`` in ``manage.py shell`` on it."""
    env = embedded_env(tmp_path)
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert migrate.returncode == 0, migrate.stderr
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
