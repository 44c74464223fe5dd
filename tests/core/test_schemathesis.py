"""The API matches its OpenAPI schema: schemathesis against a live server.

A production-mode server (uvicorn, ``DEBUG=0`` over plain http) runs on a PostgreSQL
database of its own, created and migrated for this test, with its own channel prefix on
Redis. Schemathesis reads the served schema and fuzzes every operation (all phases, the
stateful one following the links it infers between operations; all checks: no server
error, documented statuses and content types, response bodies matching their schemas,
schema-valid input accepted and schema-invalid input refused), a bounded number of
examples per operation, as a player and (in a test of its own) as staff, on seeded data
that lets each operation reach its core (a hand, a withdrawal, a fraud case, an export...:
see the seed below), each request with an idempotency key of its own (``schemathesis_hooks``:
a reused key is refused 409 before the body is read, which hid how bodies were handled).
It must report zero failures, and the ledger audit and the event-store verification must then
be clean on that database.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.live_api import LiveApi, running_api

pytestmark = [pytest.mark.slow]

CONFIG = Path(__file__).with_name("schemathesis.toml")
#: Examples per operation and phase: a few in every run (each check still sees every
#: operation), many in the deep run (``make test-deep``, ``HYPOTHESIS_PROFILE=deep``).
MAX_EXAMPLES = 25 if os.environ.get("HYPOTHESIS_PROFILE") == "deep" else 3
SEED = 20261124  # reproducible: a failure here fails the same way again

# Made before the run, so the fuzzer reaches the core of every operation instead of a 404
# or a refusal: a table with all ten seats the schema allows (at a smaller one a higher
# seat is refused, 400 invalid_seat, a limit the schema cannot express), a finished hand
# the player played, a pending withdrawal of a player with real money and verified KYC, a
# fraud case, a tournament open for registration, the player's finished export, and the
# gateway whose webhook the API serves. Each role has a user of its own for the time-out
# and the self-exclusion: either locks its user out of play for the rest of the run, which
# would leave the table commands nothing but 403.
_SEED_SCRIPT = """
import uuid
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from core.services import user_register
from fraud.models import Case
from handhistory.export_jobs import export_job_run
from handhistory.exports.filters import ExportFilters
from handhistory.models import Hand
from handhistory.services import export_job_create
from handhistory.store import Actor
from ledger.models import AccountKind
from ledger.services import ledger_account_open, ledger_transfer
from poker import money
from poker.commands.play import table_act
from poker.commands.seating import table_create, table_sit
from poker.engine.betting import legal_actions
from poker.hands import hand_state
from poker.models import Table
from tournaments.services import tournament_create
from wallet.kyc import kyc_status_set
from wallet.services import withdrawal_request
password = "pw-Str0ng-enough!"
player, rival, restricted, restricted_too = (
    user_register(username=name, password=password)
    for name in ("fuzz-player", "fuzz-rival", "fuzz-restricted", "fuzz-restricted-too")
)
staff = get_user_model().objects.create_user(username="fuzz-staff", password=password, is_staff=True)
staff.groups.add(Group.objects.get(name="admin"))
issuer = ledger_account_open(
    kind=AccountKind.BONUS, owner_ref="fuzz-issuer", currency="EUR", must_not_overdraw=False
)
ledger_transfer(
    transfer_id=uuid.uuid4(), debit_account_id=issuer.pk,
    credit_account_id=money.player_cash_account(player_id=player.pk, currency="EUR").pk,
    amount=10**7, currency="EUR", code="test_grant",
)
kyc_status_set(staff_user=staff, user_id=player.pk, status="verified", reason="fuzz")
withdrawal = withdrawal_request(user=player, withdrawal_id=uuid.uuid4(), amount=5000, currency="EUR")
table = table_create(
    name="Fuzz", variant="NT", small_blind=50, big_blind=100, min_buy_in=2000,
    max_buy_in=20000, max_seats=10,
)
duel = table_create(
    name="Duel", variant="NT", small_blind=50, big_blind=100, min_buy_in=2000,
    max_buy_in=20000, max_seats=2,
)
for user in (player, rival):
    table_sit(table_id=duel.pk, player_id=user.pk, buy_in=2000, key=f"sit-{user.pk}",
              actor=Actor(kind="player", user_id=user.pk))
hand = Hand.objects.get(pk=Table.objects.get(pk=duel.pk).current_hand_id)
actor = hand.player_ids[legal_actions(hand_state(hand)[0]).actor]
table_act(table_id=duel.pk, player_id=actor, action="fold", key="fold",
          actor=Actor(kind="player", user_id=actor))
export, _ = export_job_create(requester=player, fmt="phh", filters=ExportFilters())
export_job_run(job_id=export.pk)
case = Case.objects.create(subject=f"pair:{player.pk}-{rival.pk}", kinds=["chip_dumping"], score=5.0)
case.players.add(player, rival)
tournament = tournament_create(
    staff_user=staff, key=uuid.uuid4(), name="Fuzz freezeout", variant="NT", currency="EUR",
    buy_in=1000, fee=100, bounty=0, starting_stack=1500, seats_per_table=9, min_players=2,
    max_players=10000, start=None, levels=[{"small_blind": 10, "big_blind": 20, "ante": 0,
    "big_blind_ante": False, "minutes": 10}], breaks=[], late_registration_levels=0,
    rebuy=None, add_on=None, guarantee=0, payouts=None, action_seconds=30,
)
tokens = (Token.objects.create(user=u).key for u in (player, staff, restricted, restricted_too))
print(table.pk, hand.pk, withdrawal.pk, case.pk, tournament.pk, export.pk, *tokens)
"""

#: The operations that lock their user out of play (see the seed).
_SELF_RESTRICTING = "^/api/v1/account/(timeout|self-exclusion)/$"

#: The server's gateways: the webhook-confirming one, so deposits and withdrawals (and
#: their webhook) work in production mode as they would with a real payment provider.
_GATEWAY = {"WALLET_TEST_GATEWAY_SECRET": "fuzz-gateway-secret", "WALLET_DEFAULT_GATEWAY": "test"}


@pytest.fixture
def live_api():
    with running_api("fuzz", **_GATEWAY) as api:
        yield api


def _config(tmp_path: Path, seeded: list[str], token: str, restricted: str) -> Path:
    """The run's configuration: the checked-in one, the role's token, and the seeded
    ids for every path parameter."""
    table_id, hand_id, withdrawal_id, case_id, tournament_id, job_id = seeded
    config = tmp_path / f"schemathesis-{token[:8]}.toml"
    config.write_text(
        f'headers = {{ Authorization = "Token {token}" }}\n'
        f"{CONFIG.read_text()}\n"
        f"[[operations]]\n"
        f'include-path-regex = "{_SELF_RESTRICTING}"\n'
        f'headers = {{ Authorization = "Token {restricted}" }}\n\n'
        f"[parameters]\n"
        f'"path.table_id" = {table_id}\n"path.hand_id" = {hand_id}\n'
        f'"path.id" = "{withdrawal_id}"\n"path.case_id" = {case_id}\n'
        f'"path.tournament_id" = {tournament_id}\n"path.job_id" = {job_id}\n'
        f'"path.gateway" = "test"\n'
    )
    return config


#: The fuzzer's process, with our hooks (a fresh idempotency key for each request).
_HOOKED = {
    **os.environ,
    "SCHEMATHESIS_HOOKS": "tests.core.schemathesis_hooks",
    "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
}


def _fuzz(api: LiveApi, config: Path, tmp_path: Path, who: str) -> None:
    report = tmp_path / f"{who}.txt"
    with report.open("w") as out:
        result = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")),
                "--config-file", str(config),
                "run", f"{api.base}/api/schema/",
                "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--workers", "1",
                "--no-color", "--output-truncate", "false",
                "--request-timeout", "30",
            ],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, timeout=900, env=_HOOKED,
        )  # fmt: skip
    text = report.read_text()
    assert result.returncode == 0, f"schemathesis as {who} failed:\n{text[-20000:]}"
    assert "No issues found" in text or " passed" in text, text[-5000:]


#: Each role's run: its own token and the user its self-restricting operations lock out,
#: as positions in what the seed prints. One test per role, so the two runs (each on a
#: server and database of its own) can go on beside each other.
ROLES = {"player": (0, 2), "staff": (1, 3)}


@pytest.mark.parametrize("who", sorted(ROLES))
def test_the_api_matches_its_openapi_schema_for_each_role(live_api, tmp_path, who):
    seeded = live_api.manage("shell", "-c", _SEED_SCRIPT)
    assert seeded.returncode == 0, seeded.stderr
    *ids, player, staff, restricted, restricted_too = seeded.stdout.split()[-10:]
    tokens = (player, staff, restricted, restricted_too)
    own, locked_out = (tokens[i] for i in ROLES[who])
    live_api.start()

    _fuzz(live_api, _config(tmp_path, ids, own, locked_out), tmp_path, who)

    live_api.stop()
    audit = live_api.manage("ledger_audit")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    verified = live_api.manage("verify_event_store")
    assert verified.returncode == 0, verified.stdout + verified.stderr
