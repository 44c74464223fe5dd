"""Admin: ledger read-only with balances, withdrawal actions, staff adjustments; demo seed."""

from __future__ import annotations

import uuid
from io import StringIO

import pytest
from django.core.management import call_command

from core.errors import Forbidden, InvalidRequest, NotFound
from ledger.audit import ledger_audit
from ledger.errors import InvalidAmount
from ledger.models import Account, Transfer
from tests.support.wallet import post
from wallet.models import Adjustment, Withdrawal
from wallet.services import adjustment_create, player_account


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="boss", password="pw", email="")
    client.force_login(user)
    client.user = user
    return client


def test_ledger_admin_lists_balances_and_allows_no_edits(admin_client, player):
    page = admin_client.get("/admin/ledger/account/")
    assert page.status_code == 200 and b"available" in page.content
    assert admin_client.get("/admin/ledger/transfer/").status_code == 200
    assert admin_client.get("/admin/ledger/account/add/").status_code == 403
    account = Account.objects.filter(owner_ref=f"user:{player.user.pk}").first()
    detail = admin_client.get(f"/admin/ledger/account/{account.pk}/change/")
    assert detail.status_code == 200 and b"Save" not in detail.content
    transfer = Transfer.objects.first()
    assert admin_client.post(f"/admin/ledger/transfer/{transfer.pk}/delete/").status_code == 403
    for url in [
        "/admin/wallet/deposit/",
        "/admin/wallet/webhookevent/",
        "/admin/core/idempotencyrecord/",
    ]:
        assert admin_client.get(url).status_code == 200


def test_the_ledger_admin_shows_amounts_in_the_currencys_units_in_lists_and_details(
    admin_client, player
):
    from tests.support.poker import fund

    cash = fund(player.user, 5_000, currency="EUR")  # on top of the €100.00 deposited
    accounts = admin_client.get("/admin/ledger/account/?currency=EUR").content.decode()
    assert "€150.00" in accounts and "15000" not in accounts
    detail = admin_client.get(f"/admin/ledger/account/{cash.pk}/change/").content.decode()
    assert "€150.00" in detail and "15000" not in detail
    grant = Transfer.objects.filter(credit_account=cash).latest("created_at")
    transfers = admin_client.get("/admin/ledger/transfer/?currency=EUR").content.decode()
    assert "€50.00" in transfers
    detail = admin_client.get(f"/admin/ledger/transfer/{grant.pk}/change/").content.decode()
    assert "€50.00" in detail


def test_the_withdrawal_admin_decides_nothing_in_bulk_and_links_each_review(admin_client, player):
    ids = [
        post(player, "/api/v1/wallet/withdrawals/", {"amount": 1_000, "currency": "EUR"}).json()[
            "id"
        ]
        for _ in range(2)
    ]
    transfers = Transfer.objects.count()
    listing = admin_client.get("/admin/wallet/withdrawal/")
    assert listing.status_code == 200
    html = listing.content.decode()
    assert "approve_withdrawals" not in html and "reject_withdrawals" not in html
    assert all(f'href="/staff/withdrawals/{i}/"' in html for i in ids)
    # A forged bulk action is not one the admin knows: nothing is decided.
    admin_client.post(
        "/admin/wallet/withdrawal/", {"action": "approve_withdrawals", "_selected_action": ids}
    )
    assert set(Withdrawal.objects.filter(pk__in=ids).values_list("status", flat=True)) == {
        "pending"
    }
    assert Transfer.objects.count() == transfers
    assert admin_client.get(f"/admin/wallet/withdrawal/{ids[0]}/change/").status_code == 200
    assert ledger_audit().ok


def test_a_staff_adjustment_posts_a_correcting_transfer_with_reason_and_author(
    admin_client, player
):
    account = player_account(user_id=player.user.pk, currency="EUR")
    response = admin_client.post(
        "/admin/wallet/adjustment/add/",
        {"account": account.pk, "amount": -2_500, "reason": "duplicate deposit ticket #42"},
    )
    assert response.status_code == 302, response.content[:2000]
    adjustment = Adjustment.objects.get()
    assert adjustment.created_by == admin_client.user and adjustment.amount == -2_500
    transfer = Transfer.objects.get(pk=adjustment.transfer_id)
    assert transfer.metadata == {
        "by": admin_client.user.pk,
        "reason": "duplicate deposit ticket #42",
    }
    assert Account.objects.get(pk=account.pk).balance == 7_500
    assert admin_client.get("/admin/wallet/adjustment/").status_code == 200
    missing = admin_client.post(
        "/admin/wallet/adjustment/add/", {"account": account.pk, "amount": 5, "reason": ""}
    )
    assert missing.status_code == 200 and Adjustment.objects.count() == 1
    assert ledger_audit().ok


def test_adjustments_are_refused_without_staff_reason_amount_or_account(make_user, player):
    staff, account = (
        make_user(role="finance"),
        player_account(user_id=player.user.pk, currency="EUR"),
    )
    for refused in (player.user, make_user(role="support")):
        with pytest.raises(Forbidden, match=r"wallet\.add_adjustment"):
            adjustment_create(staff_user=refused, account_id=account.pk, amount=5, reason="x")
    with pytest.raises(InvalidRequest, match="reason"):
        adjustment_create(staff_user=staff, account_id=account.pk, amount=5, reason="  ")
    for amount in (0, 5.0, "5", 2**63):
        with pytest.raises(InvalidAmount):
            adjustment_create(staff_user=staff, account_id=account.pk, amount=amount, reason="x")
    with pytest.raises(NotFound):
        adjustment_create(staff_user=staff, account_id=10**12, amount=5, reason="x")
    created = adjustment_create(
        staff_user=staff,
        account_id=account.pk,
        amount=5,
        reason="goodwill",
        adjustment_id=uuid.uuid4(),
    )
    assert Account.objects.get(pk=account.pk).balance == 10_005 and str(created)


def test_seed_demo_creates_players_with_play_money_idempotently(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    out = StringIO()
    call_command("seed_demo", stdout=out)
    text = out.getvalue()
    for name in ("alice", "bob", "carol", "dave"):
        assert f"Demo player created: {name} / " in text
    again = StringIO()
    call_command("seed_demo", stdout=again)
    assert "Demo player 'alice' exists" in again.getvalue()
    from django.contrib.auth import get_user_model

    alice = get_user_model().objects.get(username="alice")
    assert player_account(user_id=alice.pk, currency="CHIPS").balance == 100_000
    assert player_account(user_id=alice.pk, currency="EUR").balance == 100_00
    assert ledger_audit().ok
