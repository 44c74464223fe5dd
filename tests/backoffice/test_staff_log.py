"""The staff log: one line per change, written with the change, never rewritten."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction

from backoffice.models import StaffAction
from backoffice.services import staff_log_record

pytestmark = pytest.mark.django_db


def _staff() -> object:
    return get_user_model().objects.create_user("boss", password="x" * 12, is_staff=True)


def test_a_staff_action_is_recorded_with_who_what_and_why() -> None:
    staff = _staff()
    player = get_user_model().objects.create_user("pat", password="x" * 12)
    line = staff_log_record(
        actor=staff, action="kyc.set", target=f"user:{player.pk}", subject_id=player.pk,
        reason="  passport checked  ", data={"status": "verified"},
    )  # fmt: skip
    stored = StaffAction.objects.get(pk=line.pk)
    assert (stored.actor_id, stored.action, stored.target) == (
        staff.pk,
        "kyc.set",
        f"user:{player.pk}",
    )
    assert (stored.subject_id, stored.reason, stored.data) == (
        player.pk,
        "passport checked",
        {"status": "verified"},
    )


def test_the_staff_log_refuses_updates_and_deletes() -> None:
    line = staff_log_record(actor=_staff(), action="withdrawal.approve", target="withdrawal:x")
    with pytest.raises(DatabaseError), transaction.atomic():
        StaffAction.objects.filter(pk=line.pk).update(reason="rewritten")
    with pytest.raises(DatabaseError), transaction.atomic():
        StaffAction.objects.filter(pk=line.pk).delete()
    assert StaffAction.objects.get(pk=line.pk).reason == ""


def test_a_staff_line_rolls_back_with_the_change_it_records() -> None:
    staff = _staff()
    with pytest.raises(RuntimeError), transaction.atomic():
        staff_log_record(actor=staff, action="adjustment.create", target="account:1")
        raise RuntimeError("the change failed")
    assert not StaffAction.objects.exists()
