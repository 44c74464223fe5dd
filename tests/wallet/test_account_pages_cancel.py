"""The wallet page's Cancel on a held withdrawal: the funds return, once."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from ledger.audit import ledger_audit
from ledger.models import Transfer
from tests.support.poker import fund
from wallet.models import Withdrawal
from wallet.selectors import wallet_balances
from wallet.services import withdrawal_approve, withdrawal_request

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(make_user):
    user = make_user()
    fund(user, 10_000, currency="EUR")
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def _eur(user):
    return next(b for b in wallet_balances(user_id=user.pk) if b["currency"] == "EUR")


def test_a_held_withdrawal_has_a_cancel_button_that_returns_the_funds(web):
    w = withdrawal_request(user=web.user, withdrawal_id=uuid.uuid4(), amount=2_500,
                           currency="EUR")  # fmt: skip
    html = web.get("/account/wallet/").content.decode()
    row = html.split('data-testid="withdrawal-row"', 1)[1].split("</tr>")[0]
    url = f"/account/wallet/withdrawals/{w.pk}/cancel/"
    assert f'action="{url}"' in row and 'data-testid="withdrawal-cancel"' in row
    transfers = Transfer.objects.count()
    page = web.post(url, follow=True).content.decode()
    assert "Withdrawal of €25.00 cancelled" in page
    assert Withdrawal.objects.get(pk=w.pk).status == "cancelled"
    assert _eur(web.user) == {"currency": "EUR", "balance": 10_000, "held": 0, "available": 10_000}
    web.post(url)  # the same form posted twice cancels once
    assert Transfer.objects.count() == transfers + 1 and ledger_audit().ok
    after = web.get("/account/wallet/").content.decode()
    assert 'data-testid="withdrawal-cancel"' not in after
    assert "Withdrawal cancelled (money back)" in after


def test_a_paid_withdrawal_offers_no_cancel_and_refuses_one(web, make_user):
    w = withdrawal_request(user=web.user, withdrawal_id=uuid.uuid4(), amount=2_500,
                           currency="EUR")  # fmt: skip
    withdrawal_approve(withdrawal_id=w.pk, staff_user=make_user(role="finance"), reason="ok")
    assert 'data-testid="withdrawal-cancel"' not in web.get("/account/wallet/").content.decode()
    transfers = Transfer.objects.count()
    page = web.post(f"/account/wallet/withdrawals/{w.pk}/cancel/", follow=True)
    assert 'data-testid="message-error"' in page.content.decode()
    assert Transfer.objects.count() == transfers
    assert Withdrawal.objects.get(pk=w.pk).status == "approved"
