"""KYC: staff set the status with a reason (history + staff log), players ask for review,
and withdrawals above the threshold need a verified identity."""

from __future__ import annotations

import pytest

from core.errors import DomainError
from ledger.models import Transfer
from staff.models import StaffAction
from tests.support.wallet import balances, post
from wallet.errors import KycNotAllowed
from wallet.kyc import kyc_status_of, kyc_status_set, kyc_submit
from wallet.models import KycStatusChange, Withdrawal

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich(auth_client, settings):
    """A player holding 500,000 EUR cents; the threshold is 100,000."""
    settings.WALLET_KYC_WITHDRAWAL_THRESHOLD = 100_000
    settings.WALLET_DEPOSIT_MAX = 1_000_000
    client = auth_client()
    assert (
        post(client, "/api/v1/wallet/deposits/", {"amount": 500_000, "currency": "EUR"}).status_code
        == 201
    )
    return client


def test_a_new_player_is_unverified(make_user):
    assert kyc_status_of(user_id=make_user().pk) == "unverified"


def test_staff_set_a_status_with_a_reason_kept_in_the_history_and_the_staff_log(make_user):
    staff, player = make_user(role="risk"), make_user()
    kyc_status_set(staff_user=staff, user_id=player.pk, status="verified", reason=" passport ok ")
    assert kyc_status_of(user_id=player.pk) == "verified"
    (change,) = KycStatusChange.objects.filter(user=player)
    assert (change.old_status, change.new_status, change.reason, change.changed_by) == (
        "unverified", "verified", "passport ok", staff,
    )  # fmt: skip
    (logged,) = StaffAction.objects.filter(action="kyc.set")
    assert (logged.actor, logged.target, logged.subject_id, logged.reason) == (
        staff, f"user:{player.pk}", player.pk, "passport ok",
    )  # fmt: skip
    assert logged.data == {"old": "unverified", "new": "verified"}
    # The same status again changes and logs nothing.
    kyc_status_set(staff_user=staff, user_id=player.pk, status="verified", reason="again")
    assert KycStatusChange.objects.filter(user=player).count() == 1
    assert StaffAction.objects.filter(action="kyc.set").count() == 1


@pytest.mark.parametrize("role", [None, "support", "finance"])
def test_only_the_risk_role_sets_a_status(make_user, role):
    player = make_user()
    setter = player if role is None else make_user(role=role)
    with pytest.raises(DomainError) as refused:
        kyc_status_set(staff_user=setter, user_id=player.pk, status="verified", reason="me")
    assert refused.value.code == "permission_denied" and refused.value.status == 403
    assert kyc_status_of(user_id=player.pk) == "unverified"
    assert not KycStatusChange.objects.exists() and not StaffAction.objects.exists()


@pytest.mark.parametrize(
    ("status", "reason", "code"),
    [("gold", "x", "invalid_status"), ("verified", "  ", "reason_required")],
)
def test_a_status_needs_a_known_value_and_a_reason(make_user, status, reason, code):
    staff, player = make_user(role="risk"), make_user()
    with pytest.raises(DomainError) as refused:
        kyc_status_set(staff_user=staff, user_id=player.pk, status=status, reason=reason)
    assert refused.value.code == code
    assert not KycStatusChange.objects.exists()


def test_a_player_asks_for_review_once_and_not_when_verified(make_user):
    staff, player = make_user(role="risk"), make_user()
    assert kyc_submit(user=player, note="please").status == "pending"
    assert kyc_submit(user=player, note="again").status == "pending"
    (change,) = KycStatusChange.objects.filter(user=player)
    assert (change.old_status, change.new_status, change.changed_by) == (
        "unverified",
        "pending",
        player,
    )
    kyc_status_set(staff_user=staff, user_id=player.pk, status="rejected", reason="blurry")
    assert kyc_submit(user=player).status == "pending"  # a rejected player may ask again
    kyc_status_set(staff_user=staff, user_id=player.pk, status="verified", reason="ok")
    with pytest.raises(KycNotAllowed):
        kyc_submit(user=player)
    assert [c.new_status for c in KycStatusChange.objects.filter(user=player).order_by("id")] == [
        "pending", "rejected", "pending", "verified",
    ]  # fmt: skip


def test_a_withdrawal_above_the_threshold_is_refused_unless_verified_and_writes_nothing(rich):
    before = Transfer.objects.count()
    response = post(rich, "/api/v1/wallet/withdrawals/", {"amount": 100_001, "currency": "EUR"})
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "kyc_required"
    assert body["extra"] == {"threshold": 100_000, "status": "unverified", "currency": "EUR"}
    assert Transfer.objects.count() == before
    assert not Withdrawal.objects.exists()
    assert balances(rich)["EUR"]["held"] == 0


def test_a_withdrawal_at_the_threshold_needs_no_verification(rich):
    response = post(rich, "/api/v1/wallet/withdrawals/", {"amount": 100_000, "currency": "EUR"})
    assert response.status_code == 201, response.json()
    assert balances(rich)["EUR"]["held"] == 100_000


def test_a_verified_player_withdraws_above_the_threshold(rich, make_user):
    kyc_status_set(
        staff_user=make_user(role="risk"), user_id=rich.user.pk, status="verified", reason="ok"
    )
    response = post(rich, "/api/v1/wallet/withdrawals/", {"amount": 300_000, "currency": "EUR"})
    assert response.status_code == 201, response.json()
    assert balances(rich)["EUR"]["held"] == 300_000


def test_a_pending_review_does_not_open_large_withdrawals(rich):
    kyc_submit(user=rich.user)
    response = post(rich, "/api/v1/wallet/withdrawals/", {"amount": 200_000, "currency": "EUR"})
    assert response.json()["code"] == "kyc_required"


def test_staff_set_a_status_in_the_admin_and_read_its_history_there(make_user, client):
    from django.contrib.auth.models import Permission

    staff, player = make_user(staff=True), make_user()
    staff.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_kycstatus", "change_kycstatus", "view_kycstatus"]
        )
    )
    client.force_login(staff)
    response = client.post(
        "/admin/wallet/kycstatus/add/",
        {"user": player.pk, "new_status": "pending", "reason": "documents received"},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    response = client.post(
        f"/admin/wallet/kycstatus/{player.pk}/change/",
        {"new_status": "verified", "reason": "passport checked"},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    assert kyc_status_of(user_id=player.pk) == "verified"
    page = client.get(f"/admin/wallet/kycstatus/{player.pk}/change/").content.decode()
    assert "passport checked" in page and "documents received" in page
    assert list(
        StaffAction.objects.filter(subject_id=player.pk)
        .order_by("pk")
        .values_list("action", "reason")
    ) == [("kyc.set", "documents received"), ("kyc.set", "passport checked")]


def test_the_database_refuses_to_edit_or_delete_the_kyc_history(make_user):
    from django.db import DatabaseError, transaction

    player = make_user()
    kyc_submit(user=player, note="hello")
    change = KycStatusChange.objects.get(user=player)
    for attempt in (
        lambda: KycStatusChange.objects.filter(pk=change.pk).update(reason="forged"),
        lambda: KycStatusChange.objects.filter(pk=change.pk).delete(),
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            attempt()
    change.refresh_from_db()
    assert change.reason == "hello"
