"""A player lists their own deposits and withdrawals: paginated, newest first, own only."""

from __future__ import annotations

import pytest

from tests.support.wallet import post

pytestmark = pytest.mark.django_db

DEPOSITS = "/api/v1/wallet/deposits/"
WITHDRAWALS = "/api/v1/wallet/withdrawals/"


@pytest.mark.parametrize("url", [DEPOSITS, WITHDRAWALS])
def test_a_player_lists_their_own_records_newest_first_in_pages(player, auth_client, url):
    other = auth_client()
    post(other, DEPOSITS, {"amount": 5_000, "currency": "EUR"})
    post(other, WITHDRAWALS, {"amount": 1_000, "currency": "EUR"})
    made = [
        post(player, url, {"amount": amount, "currency": "EUR"}).json()
        for amount in (100, 200, 300)
    ]
    response = player.get(url)
    assert response.status_code == 200, response.json()
    page = response.json()
    own = 4 if url == DEPOSITS else 3  # the fixture's own deposit of 10,000 is listed too
    assert page["count"] == own
    amounts = [row["amount"] for row in page["results"]]
    assert amounts[:3] == [300, 200, 100]
    assert page["results"][0] == made[-1]
    second = player.get(url, {"limit": 2, "offset": 2}).json()
    assert [row["amount"] for row in second["results"]] == amounts[2:4]
    assert second["previous"] is not None


@pytest.mark.parametrize("url", [DEPOSITS, WITHDRAWALS])
def test_the_lists_need_authentication(api_client, url):
    assert api_client.get(url).status_code == 401


def test_the_lists_are_documented_with_examples(api_client):
    schema = api_client.get("/api/schema/", {"format": "json"}).json()
    for path in ("/api/v1/wallet/deposits/", "/api/v1/wallet/withdrawals/"):
        get = schema["paths"][path]["get"]
        content = get["responses"]["200"]["content"]["application/json"]
        assert content["schema"]["$ref"].startswith("#/components/schemas/Paginated")
        assert content.get("examples"), get
        assert {p["name"] for p in get["parameters"]} >= {"limit", "offset"}
