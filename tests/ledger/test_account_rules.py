"""The account rules of a posting are stated once (``ledger.posting._RULES``) and judged by
the database, whichever path posts: each breach is refused with its typed error and
writes nothing, on PostgreSQL and on SQLite (the embedded mode, in a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.ledger import RULE_BREACHES, breach_every_rule

ROOT = Path(__file__).resolve().parents[2]


def test_every_rule_refuses_its_breach_on_postgresql(transactional_db):
    assert breach_every_rule() == RULE_BREACHES


@pytest.mark.slow
def test_every_rule_refuses_its_breach_on_sqlite(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DEBUG="1", EMBEDDED_DB_PATH=str(tmp_path / "rules.sqlite3"))
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert migrate.returncode == 0, migrate.stderr
    script = "from tests.support.ledger import breach_every_rule; print(breach_every_rule())"
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == str(RULE_BREACHES)
