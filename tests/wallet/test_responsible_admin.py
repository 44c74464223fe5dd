"""Admin: deposit limits read-only with their history; staff lift a self-exclusion in
the restriction admin once its end has passed, and the staff log says so."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from staff.models import StaffAction
from wallet.models import DepositLimit, Restriction
from wallet.responsible import deposit_limit_set, self_exclusion_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="boss", password="pw", email="")
    client.force_login(user)
    client.user = user
    return client


def test_deposit_limits_are_shown_read_only_with_their_history(admin_client, make_user):
    user = make_user()
    deposit_limit_set(user=user, currency="EUR", period="day", amount=1_000)
    deposit_limit_set(user=user, currency="EUR", period="day", amount=2_500)
    limit = DepositLimit.objects.get(user=user)
    page = admin_client.get(f"/admin/wallet/depositlimit/{limit.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "no limit -&gt; €10.00" in text and "€10.00 -&gt; €25.00" in text
    assert "1000" not in text and "2500" not in text  # never in minor units
    listed = admin_client.get("/admin/wallet/depositlimitchange/").content.decode()
    assert "€25.00" in listed and "2500" not in listed
    assert admin_client.get("/admin/wallet/depositlimitchange/").status_code == 200
    assert admin_client.get("/admin/wallet/depositlimit/add/").status_code == 403
    assert admin_client.post(f"/admin/wallet/depositlimit/{limit.pk}/delete/").status_code == 403


def test_staff_lift_a_self_exclusion_in_the_admin_only_after_its_end(admin_client, make_user):
    user = make_user()
    exclusion = self_exclusion_start(user=user, months=6, restriction_id=uuid.uuid4())
    listing = admin_client.get("/admin/wallet/restriction/?kind=self_exclusion")
    assert listing.status_code == 200 and "Self-exclusion" in listing.content.decode()
    url = f"/admin/wallet/restriction/{exclusion.pk}/lift/"

    early = admin_client.post(url, {"reason": "asked by phone"})
    assert early.status_code == 200 and "cannot be lifted before" in early.content.decode()
    assert not StaffAction.objects.exists()

    Restriction.objects.filter(pk=exclusion.pk).update(ends_at=timezone.now() - timedelta(1))
    done = admin_client.post(url, {"reason": "asked by phone"})
    assert done.status_code == 302
    exclusion.refresh_from_db()
    assert exclusion.lifted_by == admin_client.user
    entry = StaffAction.objects.get()
    assert (entry.action, entry.subject_id) == ("restriction.lift", user.pk)
