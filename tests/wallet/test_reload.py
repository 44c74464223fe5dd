"""Reload play money: up to the target, once per period, one transfer even under races."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connection, transaction

from core.errors import DomainError
from ledger.audit import ledger_audit
from ledger.models import Account, AccountKind, Transfer
from wallet.errors import ReloadNotNeeded, ReloadTooSoon
from wallet.models import PlayMoneyReload
from wallet.reload import play_money_reload
from wallet.services import seat_buy_in


def chips(user) -> int:
    return Account.objects.get(
        kind=AccountKind.PLAYER_CASH, owner_ref=f"user:{user.pk}", currency="CHIPS"
    ).balance


def spend(user, amount: int, seat_ref: str = "table:test:seat:1") -> None:
    """Moves chips from the player's cash to a seat (a buy-in), as the table layer does."""
    with transaction.atomic():
        seat_buy_in(
            user_id=user.pk,
            seat_ref=f"{seat_ref}:{user.pk}",
            amount=amount,
            currency="CHIPS",
            transfer_id=uuid.uuid4(),
        )


@pytest.fixture
def player(make_user, settings):
    from core.services import user_register

    settings.WALLET_SIGNUP_CHIPS = 10_000
    settings.WALLET_RELOAD_CHIPS = 10_000
    settings.WALLET_RELOAD_PERIOD_HOURS = 24
    return user_register(username=f"reloader{make_user().pk}", password="pw-Str0ng-enough!")


@pytest.mark.django_db
def test_a_reload_tops_the_cash_back_up_to_the_target_in_one_transfer(player):
    spend(player, 7_500)
    assert chips(player) == 2_500
    reload = play_money_reload(user=player, key="k1")
    assert reload.amount == 7_500
    assert chips(player) == 10_000
    transfer = Transfer.objects.get(pk=reload.transfer_id)
    assert (transfer.code, transfer.amount, transfer.currency) == (
        "play_money_reload",
        7_500,
        "CHIPS",
    )
    # Paid by the issuer the sign-up grant comes from.
    grant = Transfer.objects.get(code="signup_grant", reference=f"user:{player.pk}")
    assert transfer.debit_account_id == grant.debit_account_id
    assert ledger_audit().ok


@pytest.mark.django_db
def test_a_retried_reload_returns_the_first_and_moves_nothing(player):
    spend(player, 1_000)
    first = play_money_reload(user=player, key="same")
    before = Transfer.objects.count()
    assert play_money_reload(user=player, key="same") == first
    assert Transfer.objects.count() == before


@pytest.mark.django_db
def test_a_reload_is_refused_when_the_cash_is_at_or_above_the_target(player, settings):
    with pytest.raises(ReloadNotNeeded) as refused:
        play_money_reload(user=player, key="k")
    assert refused.value.code == "reload_not_needed"
    settings.WALLET_RELOAD_CHIPS = 5_000
    with pytest.raises(ReloadNotNeeded):
        play_money_reload(user=player, key="k2")
    assert not PlayMoneyReload.objects.exists()


@pytest.mark.django_db
def test_chips_at_a_table_do_not_count_toward_the_target(player):
    spend(player, 10_000)  # all on a seat: the cash is empty, the player still "has" 10,000
    reload = play_money_reload(user=player, key="k")
    assert reload.amount == 10_000
    assert chips(player) == 10_000


@pytest.mark.django_db
def test_a_second_reload_within_the_period_is_refused_with_when_the_next_is_due(player):
    spend(player, 4_000)
    first = play_money_reload(user=player, key="a")
    spend(player, 4_000, seat_ref="table:other:seat:2")
    before = Transfer.objects.count()
    with pytest.raises(ReloadTooSoon) as refused:
        play_money_reload(user=player, key="b")
    assert refused.value.code == "reload_too_soon"
    assert refused.value.extra["next_at"] == (first.created_at + timedelta(hours=24)).isoformat()
    assert Transfer.objects.count() == before
    # Once the period has passed, the next reload lands.
    PlayMoneyReload.objects.filter(pk=first.pk).update(
        created_at=first.created_at - timedelta(hours=24, seconds=1)
    )
    assert play_money_reload(user=player, key="b").amount == 4_000
    assert chips(player) == 10_000


@pytest.mark.django_db(transaction=True)
def test_two_racing_reloads_land_exactly_once(player):
    spend(player, 6_000)
    before = Transfer.objects.count()
    barrier = threading.Barrier(2)
    outcomes: list[object] = []
    lock = threading.Lock()

    def reload(key: str) -> None:
        try:
            barrier.wait()
            try:
                result: object = play_money_reload(user=player, key=key)
            except DomainError as error:
                result = error
        finally:
            connection.close()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=reload, args=(k,)) for k in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    landed = [o for o in outcomes if isinstance(o, PlayMoneyReload)]
    refused = [o for o in outcomes if isinstance(o, DomainError)]
    assert len(landed) == 1 and len(refused) == 1
    assert refused[0].code in {"reload_not_needed", "reload_too_soon"}
    assert Transfer.objects.count() == before + 1
    assert PlayMoneyReload.objects.filter(user=player).count() == 1
    assert chips(player) == 10_000
    assert ledger_audit().ok


@pytest.mark.django_db
def test_the_history_counts_the_grant_and_reloads_as_play_money(player):
    from wallet.selectors import account_history

    spend(player, 7_500)
    play_money_reload(user=player, key="k")
    (month,) = account_history(user_id=player.pk, months=1)
    (chips_row,) = month["currencies"]
    assert chips_row["currency"] == "CHIPS"
    assert (chips_row["play_money"], chips_row["buy_ins"]) == (17_500, 7_500)
