"""Withdrawal decisions: a reason on every one, four eyes above the threshold (the money
moves only at the second approval), one staff-log line per decision, and the player's
own cancel (the hold voided); every refusal leaves the ledger as it was."""

from __future__ import annotations

import uuid

import pytest

from core.errors import Forbidden, InvalidRequest, NotFound
from ledger.audit import ledger_audit
from ledger.models import Account, Transfer
from staff.models import StaffAction
from tests.support.wallet import balances, post
from wallet.errors import SecondApproverRequired, WithdrawalNotPending
from wallet.models import Withdrawal
from wallet.services import (
    player_account,
    withdrawal_approve,
    withdrawal_cancel,
    withdrawal_needs_two_approvals,
    withdrawal_reject,
)

WITHDRAWALS = "/api/v1/wallet/withdrawals/"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.WALLET_WITHDRAWAL_FOUR_EYES_ABOVE = {"EUR": 5_000, "USD": 5_000}


def _request(player, amount):
    response = post(player, WITHDRAWALS, {"amount": amount, "currency": "EUR"})
    assert response.status_code == 201, response.json()
    return Withdrawal.objects.get(pk=response.json()["id"])


def _ledger():
    """What a refusal must leave untouched: every transfer and every balance and hold."""
    return (
        Transfer.objects.count(),
        sorted(Account.objects.values_list("pk", "balance", "held")),
    )


def _held_and_balance(withdrawal):
    account = player_account(user_id=withdrawal.user_id, currency=withdrawal.currency)
    return account.held, account.balance


def _actions():
    return list(StaffAction.objects.order_by("id").values_list("action", "actor_id", "reason"))


def test_a_withdrawal_at_or_below_the_threshold_is_paid_out_by_one_approval(player, make_user):
    finance = make_user(role="finance")
    w = _request(player, 5_000)
    approved = withdrawal_approve(withdrawal_id=w.pk, staff_user=finance, reason="checked")
    assert (approved.status, approved.decided_by, approved.reason) == ("approved", finance,
                                                                       "checked")  # fmt: skip
    assert _held_and_balance(w) == (0, 5_000)
    assert _actions() == [("withdrawal.approve", finance.pk, "checked")]
    assert ledger_audit().ok


def test_above_the_threshold_the_first_approval_moves_no_money(player, make_user):
    first = make_user(role="finance")
    w = _request(player, 5_001)
    before = _ledger()
    approved = withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="docs fine")
    assert approved.status == "awaiting_second"
    assert (approved.first_approved_by, approved.first_approval_reason) == (first, "docs fine")
    assert approved.first_approved_at is not None and approved.decided_by is None
    assert _ledger() == before
    assert _held_and_balance(w) == (5_001, 10_000)
    assert _actions() == [("withdrawal.approve_first", first.pk, "docs fine")]


def test_a_second_staff_members_approval_pays_out_and_both_are_in_the_staff_log(player, make_user):
    first, second = make_user(role="finance"), make_user(role="admin")
    w = _request(player, 8_000)
    withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="docs fine")
    paid = withdrawal_approve(withdrawal_id=w.pk, staff_user=second, reason="agree")
    assert (paid.status, paid.first_approved_by, paid.decided_by) == ("approved", first, second)
    assert _held_and_balance(w) == (0, 2_000)
    assert _actions() == [
        ("withdrawal.approve_first", first.pk, "docs fine"),
        ("withdrawal.approve", second.pk, "agree"),
    ]
    assert StaffAction.objects.get(action="withdrawal.approve").data == {
        "amount": 8_000, "currency": "EUR", "first_approved_by": first.pk,
    }  # fmt: skip
    assert ledger_audit().ok


def test_the_same_staff_member_cannot_give_both_approvals(player, make_user):
    first = make_user(role="finance")
    w = _request(player, 8_000)
    withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="docs fine")
    before, log = _ledger(), _actions()
    with pytest.raises(SecondApproverRequired) as refused:
        withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="again")
    assert (refused.value.code, refused.value.status) == ("second_approver_required", 409)
    assert _ledger() == before and _actions() == log
    assert Withdrawal.objects.get(pk=w.pk).status == "awaiting_second"


def test_the_database_refuses_one_person_as_both_approvers(player, make_user):
    from django.db import IntegrityError, transaction

    first = make_user(role="finance")
    w = _request(player, 8_000)
    withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="docs fine")
    with pytest.raises(IntegrityError), transaction.atomic():
        Withdrawal.objects.filter(pk=w.pk).update(decided_by=first)


@pytest.mark.parametrize("reason", ["", "   ", None])
def test_every_decision_needs_a_reason(player, make_user, reason):
    finance = make_user(role="finance")
    w = _request(player, 1_000)
    before = _ledger()
    for decide in (withdrawal_approve, withdrawal_reject):
        with pytest.raises(InvalidRequest) as refused:
            decide(withdrawal_id=w.pk, staff_user=finance, reason=reason)
        assert refused.value.code == "reason_required"
    assert _ledger() == before and _actions() == []
    assert Withdrawal.objects.get(pk=w.pk).status == "pending"


def test_a_reason_longer_than_its_column_is_refused_not_cut(player, make_user):
    finance = make_user(role="finance")
    w = _request(player, 1_000)
    before = _ledger()
    for decide in (withdrawal_approve, withdrawal_reject):
        with pytest.raises(InvalidRequest) as refused:
            decide(withdrawal_id=w.pk, staff_user=finance, reason="x" * 256)
        assert (refused.value.code, refused.value.extra["max"]) == ("reason_too_long", 255)
    assert _ledger() == before and _actions() == []
    assert Withdrawal.objects.get(pk=w.pk).status == "pending"
    approved = withdrawal_approve(withdrawal_id=w.pk, staff_user=finance, reason="y" * 255)
    assert approved.reason == "y" * 255


def test_support_can_neither_approve_nor_reject(player, make_user):
    support = make_user(role="support")
    w = _request(player, 1_000)
    before = _ledger()
    for decide in (withdrawal_approve, withdrawal_reject):
        with pytest.raises(Forbidden) as refused:
            decide(withdrawal_id=w.pk, staff_user=support, reason="why not")
        assert refused.value.code == "permission_denied"
    assert _ledger() == before and _actions() == []


def test_a_rejected_or_cancelled_withdrawal_cannot_be_approved(player, make_user):
    finance = make_user(role="finance")
    rejected, cancelled = _request(player, 1_000), _request(player, 1_000)
    withdrawal_reject(withdrawal_id=rejected.pk, staff_user=finance, reason="kyc")
    withdrawal_cancel(user=player.user, withdrawal_id=cancelled.pk)
    before, log = _ledger(), _actions()
    for w in (rejected, cancelled):
        with pytest.raises(WithdrawalNotPending):
            withdrawal_approve(withdrawal_id=w.pk, staff_user=finance, reason="oops")
    with pytest.raises(WithdrawalNotPending):
        withdrawal_reject(withdrawal_id=cancelled.pk, staff_user=finance, reason="oops")
    assert _ledger() == before and _actions() == log


def test_a_first_approval_may_still_be_rejected_and_the_funds_return(player, make_user):
    first, second = make_user(role="finance"), make_user(role="finance")
    w = _request(player, 8_000)
    withdrawal_approve(withdrawal_id=w.pk, staff_user=first, reason="docs fine")
    rejected = withdrawal_reject(withdrawal_id=w.pk, staff_user=second, reason="card stolen")
    assert rejected.status == "rejected"
    assert _held_and_balance(w) == (0, 10_000)
    assert [a for a, _, _ in _actions()] == ["withdrawal.approve_first", "withdrawal.reject"]
    assert ledger_audit().ok


def test_a_currency_without_a_threshold_always_takes_two_approvals(settings):
    settings.WALLET_WITHDRAWAL_FOUR_EYES_ABOVE = {"EUR": 5_000}
    assert not withdrawal_needs_two_approvals(amount=5_000, currency="EUR")
    assert withdrawal_needs_two_approvals(amount=5_001, currency="EUR")
    assert withdrawal_needs_two_approvals(amount=100, currency="USD")


# --- the player's cancel ----------------------------------------------------------------


def test_a_player_cancels_their_pending_withdrawal_and_the_held_funds_return(player):
    w = _request(player, 4_000)
    transfers = Transfer.objects.count()
    response = post(player, f"{WITHDRAWALS}{w.pk}/cancel/")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "cancelled"
    assert balances(player)["EUR"] == {"currency": "EUR", "balance": 10_000, "held": 0,
                                       "available": 10_000}  # fmt: skip
    assert Transfer.objects.count() == transfers + 1
    release = Transfer.objects.get(pending_id=w.hold_transfer_id)
    assert (release.status, release.code) == ("voided", "withdrawal_cancelled")
    assert ledger_audit().ok
    assert not StaffAction.objects.exists()


def test_cancelling_twice_is_one_cancel(player):
    w = _request(player, 4_000)
    post(player, f"{WITHDRAWALS}{w.pk}/cancel/")
    before = _ledger()
    again = post(player, f"{WITHDRAWALS}{w.pk}/cancel/")
    assert again.status_code == 200 and again.json()["status"] == "cancelled"
    assert _ledger() == before


def test_a_player_may_cancel_after_a_first_approval(player, make_user):
    w = _request(player, 8_000)
    withdrawal_approve(withdrawal_id=w.pk, staff_user=make_user(role="finance"), reason="ok")
    assert post(player, f"{WITHDRAWALS}{w.pk}/cancel/").json()["status"] == "cancelled"
    assert _held_and_balance(w) == (0, 10_000)


def test_someone_elses_withdrawal_cannot_be_cancelled(player, auth_client):
    w = _request(player, 4_000)
    before = _ledger()
    response = post(auth_client(), f"{WITHDRAWALS}{w.pk}/cancel/")
    assert response.status_code == 404 and response.json()["code"] == "withdrawal_not_found"
    missing = post(player, f"{WITHDRAWALS}{uuid.uuid4()}/cancel/")
    assert missing.status_code == 404 and missing.json()["code"] == "withdrawal_not_found"
    with pytest.raises(NotFound):
        withdrawal_cancel(user=player.user, withdrawal_id=uuid.uuid4())
    assert _ledger() == before


def test_a_paid_or_rejected_withdrawal_cannot_be_cancelled(player, make_user):
    finance = make_user(role="finance")
    paid, rejected = _request(player, 1_000), _request(player, 1_000)
    withdrawal_approve(withdrawal_id=paid.pk, staff_user=finance, reason="ok")
    withdrawal_reject(withdrawal_id=rejected.pk, staff_user=finance, reason="kyc")
    before = _ledger()
    for w in (paid, rejected):
        response = post(player, f"{WITHDRAWALS}{w.pk}/cancel/")
        assert response.status_code == 409
        assert response.json()["code"] == "withdrawal_not_pending"
    assert _ledger() == before


def test_the_cancel_endpoint_refuses_a_body_it_does_not_know(player):
    w = _request(player, 4_000)
    before = _ledger()
    response = post(player, f"{WITHDRAWALS}{w.pk}/cancel/", {"reason": "x"})
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert _ledger() == before


# --- REST decisions ---------------------------------------------------------------------


def test_rest_approval_needs_a_reason_and_follows_four_eyes(player, auth_client, make_user):
    first, second = auth_client(make_user(role="finance")), auth_client(make_user(role="finance"))
    w = _request(player, 8_000)
    before = _ledger()
    missing = post(first, f"{WITHDRAWALS}{w.pk}/approve/")
    assert missing.status_code == 400, missing.json()
    assert _ledger() == before
    assert post(first, f"{WITHDRAWALS}{w.pk}/approve/", {"reason": "ok"}).json()["status"] == (
        "awaiting_second"
    )
    again = post(first, f"{WITHDRAWALS}{w.pk}/approve/", {"reason": "ok"})
    assert again.status_code == 409 and again.json()["code"] == "second_approver_required"
    paid = post(second, f"{WITHDRAWALS}{w.pk}/approve/", {"reason": "agree"})
    assert paid.status_code == 200 and paid.json()["status"] == "approved"
    assert balances(player)["EUR"]["balance"] == 2_000
