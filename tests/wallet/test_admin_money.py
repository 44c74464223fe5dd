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


def test_the_hand_and_table_admin_lists_show_a_euro_tables_money_in_euros(admin_client, make_user):
    import random

    from poker.commands.seating import table_create, table_sit
    from tests.support.poker import actor_for, fund, key, play_random_hands

    eur = table_create(name="Euro", variant="NT", small_blind=5, big_blind=10, min_buy_in=1_000,
                       max_buy_in=2_000, max_seats=6, currency="EUR")  # fmt: skip
    users = [make_user(), make_user()]
    for u in users:
        fund(u, 2_000, currency="EUR")
        table_sit(table_id=eur.pk, player_id=u.pk, buy_in=1_990, key=key(), actor=actor_for(u))
    play_random_hands(eur, users, 1, random.Random(5))

    tables = _text(admin_client.get("/admin/poker/table/"))
    assert "€0.05/€0.10" in tables
    results = _text(admin_client.get("/admin/handhistory/playerhandresult/"))
    assert "€19.90" in results and "1990" not in results
    summaries = _text(admin_client.get("/admin/handhistory/handsummary/"))
    assert "€" in summaries
