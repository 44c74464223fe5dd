"""Tournament money on the ledger: registration pays buy-in to the pool, bounty to the
bounty account and fee to the house; unregistering and a cancellation before the start
refund all of it, leaving every tournament account at zero."""

from __future__ import annotations

import pytest

from ledger.audit import ledger_audit
from ledger.models import Account, AccountKind, Transfer
from tests.support.tournaments import cash, tournament_balances
from tournaments.models import Entry, Tournament
from tournaments.services import (
    _entry_legs,
    tournament_cancel,
    tournament_register,
    tournament_unregister,
)

pytestmark = pytest.mark.django_db


def _house_fees() -> int:
    account = Account.objects.filter(
        kind=AccountKind.HOUSE_TOURNAMENT_FEES, owner_ref="house", currency="EUR"
    ).first()
    return account.balance if account else 0


def test_registration_pays_the_pool_the_bounty_account_and_the_house_fee(make_tournament, funded):
    tournament = make_tournament(buy_in=1_000, bounty=200, fee=100)
    player = funded(5_000)
    fees = _house_fees()

    entry = tournament_register(tournament_id=tournament.pk, player=player)

    assert (entry.number, entry.status) == (1, Entry.Status.REGISTERED)
    assert cash(player) == 5_000 - 1_100
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 800,
        AccountKind.TOURNAMENT_BOUNTY: 200,
    }
    assert _house_fees() == fees + 100
    codes = set(
        Transfer.objects.filter(reference=tournament.owner_ref).values_list("code", flat=True)
    )
    assert codes == {"tournament_buy_in", "tournament_bounty", "tournament_fee"}
    assert ledger_audit().ok


def test_a_freeroll_registers_without_moving_money(make_tournament, funded):
    tournament = make_tournament(buy_in=0, bounty=0, fee=0)
    player = funded(0)
    before = Transfer.objects.count()

    tournament_register(tournament_id=tournament.pk, player=player)

    assert Transfer.objects.count() == before
    assert tournament.entries.filter(status=Entry.Status.REGISTERED).count() == 1


def test_the_transfers_of_an_entry_are_derived_so_posting_them_again_pays_once(
    make_tournament, funded
):
    tournament = make_tournament()
    player = funded(5_000)
    entry = tournament_register(tournament_id=tournament.pk, player=player)
    legs = _entry_legs(tournament, entry, refund=False)

    from ledger.services import ledger_post_transfers

    posting = ledger_post_transfers(transfers=legs)

    assert posting.replayed
    assert cash(player) == 5_000 - 1_100


def test_unregistering_before_the_start_refunds_buy_in_bounty_and_fee(make_tournament, funded):
    tournament = make_tournament()
    player = funded(5_000)
    fees = _house_fees()
    tournament_register(tournament_id=tournament.pk, player=player)

    entry = tournament_unregister(tournament_id=tournament.pk, player=player)

    assert entry.status == Entry.Status.UNREGISTERED
    assert cash(player) == 5_000
    assert set(tournament_balances(tournament).values()) == {0}
    assert _house_fees() == fees
    assert ledger_audit().ok


def test_a_player_who_unregistered_may_register_again_as_a_new_entry(make_tournament, funded):
    tournament = make_tournament()
    player = funded(5_000)
    tournament_register(tournament_id=tournament.pk, player=player)
    tournament_unregister(tournament_id=tournament.pk, player=player)

    again = tournament_register(tournament_id=tournament.pk, player=player)

    assert again.number == 2
    assert cash(player) == 5_000 - 1_100
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_POOL] == 800


def test_a_cancellation_before_the_start_refunds_everyone_and_leaves_the_accounts_at_zero(
    make_tournament, funded, director
):
    tournament = make_tournament(guarantee=50_000)
    players = [funded(3_000) for _ in range(4)]
    for player in players:
        tournament_register(tournament_id=tournament.pk, player=player)
    tournament_unregister(tournament_id=tournament.pk, player=players[0])
    fees = _house_fees()

    cancelled = tournament_cancel(
        tournament_id=tournament.pk, staff_user=director, reason="server maintenance"
    )

    assert (cancelled.status, cancelled.cancel_reason) == (
        Tournament.Status.CANCELLED,
        "server maintenance",
    )
    assert [cash(p) for p in players] == [3_000] * 4
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 0,
        AccountKind.TOURNAMENT_BOUNTY: 0,
    }
    assert _house_fees() == fees - 300
    assert set(tournament.entries.values_list("status", flat=True)) == {
        Entry.Status.UNREGISTERED,
        Entry.Status.REFUNDED,
    }
    assert ledger_audit().ok
