"""Holds on an account: withdrawals refused while one blocks them, lifted only by staff."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import Forbidden, InvalidRequest, NotFound
from ledger.models import Transfer
from tests.support.wallet import balances, post
from wallet.errors import RestrictionNotActive
from wallet.models import Restriction
from wallet.restrictions import restriction_impose, restriction_lift

pytestmark = pytest.mark.django_db


def _freeze(client: Any) -> Restriction:
    held, created = restriction_impose(user_id=client.user.pk, kind="fraud_freeze",
                                       source="case:1", reason="confirmed", by=None)  # fmt: skip
    assert created
    return held


def test_a_frozen_account_cannot_withdraw_and_nothing_moves(player, transfer_count):
    _freeze(player)
    before, transfers = balances(player), transfer_count()
    response = post(player, "/api/v1/wallet/withdrawals/", {"amount": 1_000, "currency": "EUR"})
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "account_restricted" and "under review" in body["message"]
    assert balances(player) == before and transfer_count() == transfers


def test_a_frozen_account_may_still_deposit(player):
    _freeze(player)
    response = post(player, "/api/v1/wallet/deposits/", {"amount": 500, "currency": "EUR"})
    assert response.status_code == 201


def test_imposing_the_same_hold_twice_is_one_hold(player):
    held = _freeze(player)
    again, created = restriction_impose(user_id=player.user.pk, kind="fraud_freeze",
                                        source="case:1", reason="confirmed", by=None)  # fmt: skip
    assert again == held and not created
    assert Restriction.objects.filter(user=player.user).count() == 1


def test_a_hold_needs_a_known_kind_and_a_reason(player):
    with pytest.raises(InvalidRequest) as unknown:
        restriction_impose(user_id=player.user.pk, kind="nap", source="x", reason="r", by=None)
    assert unknown.value.code == "unknown_restriction"
    with pytest.raises(InvalidRequest) as blank:
        restriction_impose(user_id=player.user.pk, kind="fraud_freeze", source="x", reason=" ",
                           by=None)  # fmt: skip
    assert blank.value.code == "reason_required"
    assert not Restriction.objects.exists()


def test_only_risk_staff_lift_a_hold_with_a_reason_and_withdrawals_resume(player, make_user):
    held = _freeze(player)
    for refused in (player.user, make_user(role="support"), make_user(role="finance")):
        with pytest.raises(Forbidden):
            restriction_lift(restriction_id=held.pk, reason="please", by=refused)
    staff = make_user(role="risk")
    with pytest.raises(InvalidRequest):
        restriction_lift(restriction_id=held.pk, reason="", by=staff)
    with pytest.raises(NotFound):
        restriction_lift(restriction_id=held.pk + 99, reason="x", by=staff)
    assert Restriction.objects.get(pk=held.pk).lifted_at is None
    lifted = restriction_lift(restriction_id=held.pk, reason="appeal upheld", by=staff)
    assert lifted.lifted_by == staff and lifted.lift_reason == "appeal upheld"
    with pytest.raises(RestrictionNotActive):
        restriction_lift(restriction_id=held.pk, reason="again", by=staff)
    transfers = Transfer.objects.count()
    response = post(player, "/api/v1/wallet/withdrawals/", {"amount": 1_000, "currency": "EUR"})
    assert response.status_code == 201 and Transfer.objects.count() == transfers + 1


def test_staff_lift_a_hold_from_the_admin_with_a_reason(player, make_user):
    from django.test import Client

    held = _freeze(player)
    staff = make_user(staff=True)
    staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    page = client.get(f"/admin/wallet/restriction/{held.pk}/change/").content.decode()
    assert f"/admin/wallet/restriction/{held.pk}/lift/" in page
    refused = client.post(f"/admin/wallet/restriction/{held.pk}/lift/", {"reason": ""})
    assert refused.status_code == 200 and Restriction.objects.get(pk=held.pk).lifted_at is None
    done = client.post(f"/admin/wallet/restriction/{held.pk}/lift/", {"reason": "appeal upheld"})
    assert done.status_code == 302
    lifted = Restriction.objects.get(pk=held.pk)
    assert lifted.lifted_by == staff and lifted.lift_reason == "appeal upheld"
