"""Real threads, real PostgreSQL: decisions and the player's cancel racing on one
withdrawal end it once, and four eyes hold under the race."""

from __future__ import annotations

import uuid

import pytest

from ledger.audit import ledger_audit
from ledger.models import Transfer
from tests.support.poker import fund
from tests.support.threads import concurrently
from wallet.errors import WithdrawalNotPending
from wallet.models import Withdrawal
from wallet.services import (
    player_account,
    withdrawal_approve,
    withdrawal_cancel,
    withdrawal_request,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("ledger-concurrency"),
]


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.WALLET_WITHDRAWAL_FOUR_EYES_ABOVE = {"EUR": 5_000, "USD": 5_000}


def _held(make_user, amount):
    user = make_user()
    fund(user, 10_000, currency="EUR")
    w = withdrawal_request(user=user, withdrawal_id=uuid.uuid4(), amount=amount, currency="EUR")
    return user, w


def test_the_same_staff_member_approving_twice_at_once_gives_one_approval(make_user):
    _, w = _held(make_user, 8_000)
    staff = make_user(role="finance")
    transfers = Transfer.objects.count()
    results = concurrently(
        lambda: withdrawal_approve(withdrawal_id=w.pk, staff_user=staff, reason="a"),
        lambda: withdrawal_approve(withdrawal_id=w.pk, staff_user=staff, reason="b"),
    )
    assert sorted(type(r).__name__ for r in results) == ["SecondApproverRequired", "Withdrawal"]
    assert Withdrawal.objects.get(pk=w.pk).status == "awaiting_second"
    assert Transfer.objects.count() == transfers


def test_a_cancel_racing_the_second_approval_ends_the_withdrawal_once(make_user):
    user, w = _held(make_user, 8_000)
    first, second = make_user(role="finance"), make_user(role="finance")
    withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="docs")
    transfers = Transfer.objects.count()
    results = concurrently(
        lambda: withdrawal_approve(withdrawal_id=w.pk, staff_user=second, reason="agree"),
        lambda: withdrawal_cancel(user=user, withdrawal_id=w.pk),
    )
    losers = [r for r in results if isinstance(r, BaseException)]
    assert len(losers) == 1 and isinstance(losers[0], WithdrawalNotPending), results
    status = Withdrawal.objects.get(pk=w.pk).status
    account = player_account(user_id=user.pk, currency="EUR")
    assert (account.held, account.balance) == ((0, 2_000) if status == "approved" else (0, 10_000))
    assert Transfer.objects.count() == transfers + 1
    assert ledger_audit().ok
