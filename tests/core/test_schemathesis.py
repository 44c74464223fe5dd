"""The API matches its OpenAPI schema: schemathesis against a live server.

A production-mode server (uvicorn, ``DEBUG=0`` over plain http) runs on a PostgreSQL
database of its own, created and migrated for this test, with its own channel prefix on
Redis. Schemathesis reads the served schema and fuzzes every operation (all phases, all
checks: no server error, documented statuses and content types, response bodies matching
their schemas, schema-valid input accepted and schema-invalid input refused), a bounded
number of examples per operation, once as a player and once as staff. It must report zero
failures, and the ledger audit and the event-store verification must then be clean on that
database.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.live_api import LiveApi, running_api

pytestmark = [pytest.mark.slow]

CONFIG = Path(__file__).with_name("schemathesis.toml")
MAX_EXAMPLES = 15  # per operation and phase: the whole test stays within a few minutes
SEED = 20261124  # reproducible: a failure here fails the same way again

# Made before the run, so the fuzzer reaches the table commands with a real table. It has
# all ten seats the schema allows: at a smaller table a higher seat is refused (400
# invalid_seat), a limit of that table that the schema cannot express.
_SEED_SCRIPT = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from core.services import user_register
from poker.commands.seating import table_create
player = user_register(username="fuzz-player", password="pw-Str0ng-enough!")
staff = get_user_model().objects.create_user(
    username="fuzz-staff", password="pw-Str0ng-enough!", is_staff=True
)
staff.groups.add(Group.objects.get(name="admin"))
table = table_create(
    name="Fuzz", variant="NT", small_blind=50, big_blind=100, min_buy_in=2000,
    max_buy_in=20000, max_seats=10,
)
print(table.pk, Token.objects.create(user=player).key, Token.objects.create(user=staff).key)
"""


@pytest.fixture
def live_api():
    with running_api("fuzz") as api:
        yield api


def _fuzz(api: LiveApi, token: str, table_id: int, tmp_path: Path, who: str) -> None:
    report = tmp_path / f"{who}.txt"
    # The seeded table, so the table commands reach the game instead of a 404.
    config = tmp_path / "schemathesis.toml"
    config.write_text(f'{CONFIG.read_text()}\n[parameters]\n"path.table_id" = {table_id}\n')
    with report.open("w") as out:
        result = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")),
                "--config-file", str(config),
                "run", f"{api.base}/api/schema/",
                "--header", f"Authorization: Token {token}",
                "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--workers", "1",
                "--no-color", "--output-truncate", "false",
                "--request-timeout", "30",
            ],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, timeout=600,
        )  # fmt: skip
    text = report.read_text()
    assert result.returncode == 0, f"schemathesis as {who} failed:\n{text[-20000:]}"
    assert "No issues found" in text or " passed" in text, text[-5000:]


def test_the_api_matches_its_openapi_schema_for_a_player_and_for_staff(live_api, tmp_path):
    seeded = live_api.manage("shell", "-c", _SEED_SCRIPT)
    assert seeded.returncode == 0, seeded.stderr
    table_id, player_token, staff_token = seeded.stdout.split()[-3:]
    live_api.start()

    _fuzz(live_api, player_token, int(table_id), tmp_path, "player")
    _fuzz(live_api, staff_token, int(table_id), tmp_path, "staff")

    live_api.stop()
    audit = live_api.manage("ledger_audit")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    verified = live_api.manage("verify_event_store")
    assert verified.returncode == 0, verified.stdout + verified.stderr
