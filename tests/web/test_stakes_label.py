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
