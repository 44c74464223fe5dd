"""The money admin shows amounts in the currency's units, as the players' pages do: a 50.00
EUR withdrawal is "€50.00" in the list and the detail, never its 5,000 minor units."""

from __future__ import annotations

import re

import pytest

from tests.support.wallet import post

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="boss", password="pw", email="")
    client.force_login(user)
    return client


def _text(response):
    assert response.status_code == 200
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.mark.parametrize(("kind", "url"), [("withdrawals", "withdrawal"), ("deposits", "deposit")])
def test_money_admin_shows_a_50_eur_amount_as_euros_in_list_and_detail(
    admin_client, player, kind, url
):
    made = post(player, f"/api/v1/wallet/{kind}/", {"amount": 5_000, "currency": "EUR"}).json()

    listed = _text(admin_client.get(f"/admin/wallet/{url}/"))
    detail = _text(admin_client.get(f"/admin/wallet/{url}/{made['id']}/change/"))

    for page in (listed, detail):
        assert "€50.00" in page
        assert "5000" not in page and "5,000" not in page
