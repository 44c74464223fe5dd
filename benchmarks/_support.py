"""Shared plumbing of the database benchmarks: a throwaway PostgreSQL database and Django.

Each benchmark creates (and afterwards drops) its own database, named by the benchmark,
on the server of ``DATABASE_URL``; dev data is never touched. Its child processes get an
environment pointing at that database and set Django up from it.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def server_url() -> str:
    """The PostgreSQL server's ``DATABASE_URL``; exits with a hint when it is not PostgreSQL."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(
            "bench_ledger needs PostgreSQL: run it through `make bench` or "
            "scripts/with_services.py (DATABASE_URL=postgres://...)."
        )
    return url


def with_db(url: str, name: str) -> str:
    """``url`` pointing at the database ``name`` on the same server."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def drop_database(url: str, name: str) -> None:
    """Drops the database ``name`` on the server of ``url`` if it exists (even in use)."""
    import psycopg

    with psycopg.connect(with_db(url, "postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def recreate_database(url: str, name: str) -> str:
    """Drops and creates the empty database ``name`` on the server of ``url``; its URL."""
    import psycopg

    with psycopg.connect(with_db(url, "postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return with_db(url, name)


def bench_env(db_url: str) -> dict[str, str]:
    """The environment of the benchmark's processes: this one's, on ``db_url``, no Redis."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(DATABASE_URL=db_url, DJANGO_SETTINGS_MODULE="config.settings", LOG_LEVEL="WARNING")
    # Hands follow each other at once: the figures measure the table path, not the pause
    # that shows a finished hand's result to people.
    env["POKER_HAND_PAUSE_MS"] = "0"
    env.setdefault("SECRET_KEY", "bench-only-secret-key-" + "x" * 32)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Runs ``manage.py *args`` in ``env`` (output captured, ten minutes at most)."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def django_setup(env: dict[str, str]) -> None:
    """Sets Django up in this process from ``env`` (the project's root on ``sys.path``)."""
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def in_fresh_process(target: Any, *args: Any) -> Any:
    """``target(*args)`` in a new (spawned) process with Django set up anew by it; its
    result, or its exception raised here."""
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(target, args)
