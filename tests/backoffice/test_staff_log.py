"""The staff log: one line per change, written with the change, never rewritten."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction

from staff.log import staff_log_record
from staff.models import StaffAction

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


def test_the_admin_user_page_and_index_lead_to_the_profile_and_reports(client) -> None:
    boss = get_user_model().objects.create_superuser("root", password="x" * 12)
    player = get_user_model().objects.create_user("pat", password="x" * 12)
    client.force_login(boss)
    page = client.get(f"/admin/auth/user/{player.pk}/change/").content.decode()
    assert f'href="/staff/players/{player.pk}/" data-testid="profile-link"' in page
    index = client.get("/admin/").content.decode()
    assert 'href="/staff/reports/" data-testid="reports-link"' in index
    assert 'href="/staff/" data-testid="nav-dashboard"' in index
