"""Project code on SQLite (the embedded mode) from a test on PostgreSQL: a subprocess with
the embedded settings and a database file of its own."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def embedded_env(tmp_path: Path) -> dict[str, str]:
    """This environment without the services, so the settings fall back to SQLite."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DEBUG="1", EMBEDDED_DB_PATH=str(tmp_path / "embedded.sqlite3"))
    return env


@functools.cache
def _migrated() -> Path:
    """A SQLite database migrated from nothing, once per test process (a migration costs
    seconds); each test gets a copy of it."""
    directory = Path(tempfile.mkdtemp(prefix="embedded-migrated-"))
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=embedded_env(directory), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert migrate.returncode == 0, migrate.stderr
    return directory / "embedded.sqlite3"


def shell_on_sqlite(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Runs ``script`` in ``manage.py shell`` on a fresh copy of a migrated SQLite database."""
    env = embedded_env(tmp_path)
    shutil.copyfile(_migrated(), env["EMBEDDED_DB_PATH"])
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
