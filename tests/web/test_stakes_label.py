"""Every variant is labelled by its own stakes, made in one place (``stakes_label``) and
shown the same in the API, the lobby and the table page."""

import pytest

from poker.selectors import table_public
from tests.poker import conftest as poker_fixtures

table = poker_fixtures.table

pytestmark = pytest.mark.django_db


def test_a_fixed_limit_table_is_labelled_by_its_small_and_big_bet(client, table):
    limit = table(name="Demo Limit Hold'em 100/200", variant="FT", small_blind=50, big_blind=100)

    assert limit.stakes_label == "100/200"
    assert str(limit) == "Demo Limit Hold'em 100/200 (FT 100/200 CHIPS)"  # admin, seed_demo
    assert table_public(limit)["stakes_label"] == "100/200"
    lobby = client.get("/").content.decode()
    row = lobby.split(f'data-testid="lobby-row-{limit.pk}"')[1].split("</tr>")[0]
    assert ">100/200 CHIPS<" in row
    assert "50/100" not in row
    page = client.get(f"/tables/{limit.pk}/").content.decode()
    stakes = page.split('data-testid="table-stakes">')[1].split("</span>")[0]
    assert "100/200 CHIPS" in stakes and "50/100" not in stakes


def test_blind_games_are_labelled_by_their_blinds_antes_and_button_blind(client, table):
    nl = table(name="NL", variant="NT", small_blind=50, big_blind=100)
    plo = table(name="PLO", variant="PO", small_blind=25, big_blind=50, min_buy_in=2_000)
    short = table(name="SD", variant="NS", small_blind=0, big_blind=100, ante=100,
                  button_blind=100)  # fmt: skip

    assert nl.stakes_label == "50/100"
    assert plo.stakes_label == "25/50"
    assert short.stakes_label == "0/100 ante 100 button 100"
    lobby = client.get("/api/v1/tables/")
    assert lobby.status_code == 200
    labels = {t["id"]: t["stakes_label"] for t in lobby.json()}
    assert labels == {nl.pk: "50/100", plo.pk: "25/50", short.pk: "0/100 ante 100 button 100"}
    page = client.get(f"/tables/{short.pk}/").content.decode()
    assert "0/100 ante 100 button 100 CHIPS" in page


def test_a_real_money_table_shows_its_stakes_and_buy_ins_in_the_currencys_units(client, table):
    eur = table(name="EUR", currency="EUR", small_blind=5, big_blind=10, min_buy_in=1_000,
                max_buy_in=2_000)  # fmt: skip

    assert eur.stakes_label == "5/10"  # the API's label stays in minor units
    assert eur.stakes_display == "€0.05/€0.10"
    row = client.get("/").content.decode().split(f'data-testid="lobby-row-{eur.pk}"')[1]
    row = row.split("</tr>")[0]
    assert ">€0.05/€0.10<" in row and "5/10" not in row
    assert "€10.00\u2013€20.00" in row and "1000" not in row
    page = client.get(f"/tables/{eur.pk}/").content.decode()
    stakes = page.split('data-testid="table-stakes">')[1].split("</span>")[0]
    assert "€0.05/€0.10" in stakes and "EUR" not in stakes
    listed = {t["id"]: t for t in client.get("/api/v1/tables/").json()}[eur.pk]
    assert (listed["stakes_label"], listed["stakes_display"]) == ("5/10", "€0.05/€0.10")
    assert listed["currency_spec"] == {"code": "EUR", "decimals": 2, "symbol": "€"}


def test_a_play_money_table_still_shows_whole_chips(client, table):
    chips = table(name="Big", small_blind=500, big_blind=1_000, min_buy_in=20_000,
                  max_buy_in=100_000)  # fmt: skip

    row = client.get("/").content.decode().split(f'data-testid="lobby-row-{chips.pk}"')[1]
    row = row.split("</tr>")[0]
    assert ">500/1,000 CHIPS<" in row and ">20,000\u2013100,000<" in row and ".00" not in row
