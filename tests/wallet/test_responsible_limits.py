"""A player's own deposit limits: each rolling period holds; lowering holds at once,
raising (or removing) waits WALLET_LIMIT_RAISE_DELAY_HOURS; every change is kept."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import InvalidRequest
from ledger.models import Transfer
from tests.support.wallet import balances, post
from wallet.errors import DepositLimitReached
from wallet.models import Deposit, DepositLimit, DepositLimitChange
from wallet.responsible import deposit_limit_set
from wallet.services import deposit_create

pytestmark = pytest.mark.django_db

DEPOSITS = "/api/v1/wallet/deposits/"


def _deposit(client, amount):
    return post(client, DEPOSITS, {"amount": amount, "currency": "EUR"})


def _limit(client, period, amount, currency="EUR"):
    return deposit_limit_set(user=client.user, currency=currency, period=period, amount=amount)


def _age(client, delta):
    """Moves every deposit of the player ``delta`` into the past."""
    Deposit.objects.filter(user=client.user).update(created_at=timezone.now() - delta)


@pytest.mark.parametrize(("period", "days"), [("day", 1), ("week", 7), ("month", 30)])
def test_each_period_holds_over_its_rolling_window(auth_client, period, days):
    client = auth_client()
    assert _deposit(client, 700).status_code == 201
    _age(client, timedelta(days=days) - timedelta(hours=1))  # still inside the window
    change = _limit(client, period, 1_000)
    assert change.immediate
    transfers = Transfer.objects.count()

    refused = _deposit(client, 400)
    assert refused.status_code == 403
    body = refused.json()
    assert body["code"] == "deposit_limit_reached"
    assert body["extra"] == {"currency": "EUR", "period": period, "limit": 1_000, "used": 700,
                             "remaining": 300}  # fmt: skip
    assert Transfer.objects.count() == transfers
    assert Deposit.objects.filter(user=client.user).count() == 1

    assert _deposit(client, 300).status_code == 201  # exactly up to the limit
    assert _deposit(client, 1).status_code == 403
    # Once the old deposit leaves the window its amount is free again.
    Deposit.objects.filter(user=client.user, amount=700).update(
        created_at=timezone.now() - timedelta(days=days, hours=1)
    )
    assert _deposit(client, 700).status_code == 201
    assert balances(client)["EUR"]["balance"] == 1_700


def test_a_limit_holds_per_currency(auth_client):
    client = auth_client()
    _limit(client, "day", 500)
    assert _deposit(client, 600).status_code == 403
    assert post(client, DEPOSITS, {"amount": 600, "currency": "USD"}).status_code == 201


def test_the_global_daily_maximum_still_holds_above_a_personal_limit(auth_client, settings):
    settings.WALLET_DEPOSIT_DAILY_MAX = 1_000
    client = auth_client()
    _limit(client, "day", 5_000)
    refused = _deposit(client, 1_500)
    assert refused.status_code == 422 and refused.json()["code"] == "deposit_daily_limit"


def test_lowering_holds_at_once_and_raising_waits_for_the_delay(auth_client, settings):
    settings.WALLET_LIMIT_RAISE_DELAY_HOURS = 24
    client = auth_client()
    _limit(client, "day", 1_000)
    lowered = _limit(client, "day", 400)
    assert lowered.immediate
    assert _deposit(client, 500).status_code == 403

    before = timezone.now()
    raised = _limit(client, "day", 2_000)
    assert not raised.immediate
    assert (
        before + timedelta(hours=24)
        <= raised.effective_from
        <= timezone.now() + timedelta(hours=24)
    )
    row = DepositLimit.objects.get(user=client.user, period="day")
    assert (row.amount, row.pending_amount) == (400, 2_000)
    assert _deposit(client, 500).status_code == 403  # the raise is not in force yet

    # The delay passes (the check reads the value in force at its time: no task needed).
    DepositLimit.objects.filter(pk=row.pk).update(pending_from=timezone.now() - timedelta(1))
    assert _deposit(client, 500).status_code == 201


def test_lowering_while_a_raise_waits_cancels_the_raise(auth_client):
    client = auth_client()
    _limit(client, "week", 1_000)
    _limit(client, "week", 5_000)
    _limit(client, "week", 800)
    row = DepositLimit.objects.get(user=client.user, period="week")
    assert (row.amount, row.pending_amount, row.pending_from) == (800, None, None)
    assert _deposit(client, 900).status_code == 403


def test_removing_a_limit_waits_like_a_raise(auth_client):
    client = auth_client()
    _limit(client, "month", 300)
    removal = _limit(client, "month", None)
    assert not removal.immediate
    assert _deposit(client, 400).status_code == 403
    DepositLimit.objects.filter(user=client.user).update(
        pending_from=timezone.now() - timedelta(seconds=1)
    )
    assert _deposit(client, 400).status_code == 201


def test_asking_the_same_raise_again_keeps_its_time(auth_client):
    client = auth_client()
    _limit(client, "day", 100)
    first = _limit(client, "day", 200)
    again = _limit(client, "day", 200)
    assert again.effective_from == first.effective_from
    assert DepositLimitChange.objects.filter(user=client.user).count() == 2


def test_a_first_limit_holds_at_once_and_every_change_is_in_the_history(auth_client):
    client = auth_client()
    _limit(client, "day", 1_000)
    _limit(client, "day", 3_000)
    _limit(client, "day", 500)
    history = list(
        DepositLimitChange.objects.filter(user=client.user)
        .order_by("created_at", "id")
        .values_list("old_amount", "new_amount", "created_by_id")
    )
    assert history == [(None, 1_000, client.user.pk), (1_000, 3_000, client.user.pk),
                       (1_000, 500, client.user.pk)]  # fmt: skip


def test_the_history_refuses_update_and_delete(auth_client):
    client = auth_client()
    _limit(client, "day", 1_000)
    change = DepositLimitChange.objects.get(user=client.user)
    with pytest.raises(IntegrityError), transaction.atomic():
        DepositLimitChange.objects.filter(pk=change.pk).update(new_amount=5)
    with pytest.raises(IntegrityError), transaction.atomic():
        DepositLimitChange.objects.filter(pk=change.pk).delete()


@pytest.mark.parametrize(
    ("currency", "period", "amount", "code"),
    [
        ("EUR", "year", 100, "invalid_period"),
        ("EUR", None, 100, "invalid_period"),
        ("EUR", "day", -5, "invalid_amount"),
        ("EUR", "day", 0, "invalid_amount"),
        ("EUR", "day", 1.5, "invalid_amount"),
        ("EUR", "day", "100", "invalid_amount"),
        ("EUR", "day", True, "invalid_amount"),
        ("XYZ", "day", 100, "unknown_currency"),
        ("CHIPS", "day", 100, "currency_not_allowed"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(auth_client, currency, period, amount, code):
    client = auth_client()
    with pytest.raises(InvalidRequest) as refused:
        _limit(client, period, amount, currency=currency)
    assert refused.value.code == code and refused.value.status == 400
    assert not DepositLimit.objects.exists() and not DepositLimitChange.objects.exists()


def test_the_refusal_is_a_typed_error_with_its_figures(auth_client):
    client = auth_client()
    _limit(client, "day", 100)
    with pytest.raises(DepositLimitReached) as refused:
        deposit_create(user=client.user, deposit_id=uuid.uuid4(), amount=101, currency="EUR")
    assert refused.value.status == 403
    assert "100 EUR" in refused.value.message and "24 hours" in refused.value.message
