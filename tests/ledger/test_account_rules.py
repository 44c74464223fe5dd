"""The account rules of a posting are stated once (``ledger.posting._RULES``) and judged by
the database, whichever path posts: each breach is refused with its typed error and
writes nothing, on PostgreSQL and on SQLite (the embedded mode, in a subprocess)."""

from __future__ import annotations

import pytest

from tests.support.ledger import RULE_BREACHES, breach_every_rule
from tests.support.sqlite import shell_on_sqlite


def test_every_rule_refuses_its_breach_on_postgresql(transactional_db):
    assert breach_every_rule() == RULE_BREACHES


@pytest.mark.slow
def test_every_rule_refuses_its_breach_on_sqlite(tmp_path):
    script = "from tests.support.ledger import breach_every_rule; print(breach_every_rule())"
    run = shell_on_sqlite(tmp_path, script)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == str(RULE_BREACHES)
