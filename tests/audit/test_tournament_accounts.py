"""The audit check that every finished or cancelled tournament's accounts (prize pool,
bounties) are at exactly zero."""

from __future__ import annotations

import io
import uuid

import pytest
from django.core.management import call_command
from django.db import transaction

from audit.models import AuditRun
from audit.services import audit_run
from ledger.models import AccountKind
from ledger.services import ledger_post_transfers
from poker.models import Table
from tests.support.ledger import transfer
from tests.tournaments import conftest as tournament_fixtures
from tournaments.director import hand_finished
from tournaments.models import Tournament
from tournaments.services import tournament_accounts, tournament_cancel, tournament_register
from wallet.services import player_account

pytestmark = pytest.mark.django_db(transaction=True)

director, funded, make_tournament = (
    tournament_fixtures.director,
    tournament_fixtures.funded,
    tournament_fixtures.make_tournament,
)


def test_cancelled_tournaments_at_zero_and_open_ones_holding_money_pass(
    make_tournament, funded, director
):
    cancelled, open_ = make_tournament(), make_tournament()
    for tournament in (cancelled, open_):
        tournament_register(tournament_id=tournament.pk, player=funded())
    tournament_cancel(tournament_id=cancelled.pk, staff_user=director, reason="test")

    run = audit_run(check="tournament_accounts")

    assert (run.status, run.checked, run.failures) == (AuditRun.Status.PASSED, 1, [])
    call_command("audit_run", "--all", stdout=io.StringIO())
    assert set(AuditRun.objects.values_list("status", flat=True)) == {AuditRun.Status.PASSED}


def test_money_left_on_a_cancelled_tournaments_pool_fails_the_check(
    make_tournament, funded, director
):
    tournament, player = make_tournament(), funded()
    tournament_cancel(tournament_id=tournament.pk, staff_user=director, reason="test")
    pool = tournament_accounts(tournament)["pool"]
    cash = player_account(user_id=player.pk, currency="EUR")
    ledger_post_transfers(transfers=[transfer(cash, pool, 250, id=uuid.uuid4())])

    run = audit_run(check="tournament_accounts")

    assert run.status == AuditRun.Status.FAILED
    assert run.failures == [
        f"tournament {tournament.pk} (cancelled): {AccountKind.TOURNAMENT_POOL} holds 250 EUR"
    ]


def test_a_bounty_sit_and_go_finished_leaves_its_pool_and_bounty_accounts_at_zero(
    make_tournament, funded
):
    tournament = make_tournament(bounty=200)
    players = [funded() for _ in range(6)]
    for player in players:  # the last registration's commit starts it
        tournament_register(tournament_id=tournament.pk, player=player)
    (table,) = Table.objects.filter(tournament_id=tournament.pk)
    winner = players[-1]
    for out in range(5):  # the winner busts every other player, one a hand
        left = players[out + 1 :]
        stacks = {players[out].pk: 0, **{p.pk: 9_000 // len(left) for p in left}}
        with transaction.atomic():
            hand_finished(
                table.pk, out + 1, stacks, [players[out].pk], {players[out].pk: (winner.pk,)}
            )
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED

    run = audit_run(check="tournament_accounts")

    assert (run.status, run.checked, run.failures) == (AuditRun.Status.PASSED, 1, [])
