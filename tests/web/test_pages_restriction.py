"""Responsible gaming on every page: the header's account menu, the wallet and history
pages link the limits, time-out and self-exclusion pages; a player on a time-out or
self-excluded sees until when on every page and is offered no Join or Sit (which the
server refuses anyway, writing nothing)."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from ledger.models import Account, Transfer
from poker.models import Seat
from tests.poker import conftest as poker_fixtures
from tests.support.poker import fund
from tests.support.tables_api import post, tables_url
from wallet.responsible import self_exclusion_start, timeout_start
from wallet.restrictions import restriction_impose

table = poker_fixtures.table

pytestmark = pytest.mark.django_db

#: The pages a player moves between, each drawn on the base template.
PAGES = ["/", "/account/wallet/", "/account/history/", "/hands/", "/fairness/"]


@pytest.fixture
def web(make_user):
    user = make_user()
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def _html(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_header_account_menu_links_limits_time_out_and_self_exclusion(web):
    for url in PAGES:
        menu = _html(web, url).split('data-testid="account-menu"', 1)[1].split("</details>")[0]
        assert 'href="/account/limits/" data-testid="nav-limits"' in menu, url
        assert 'href="/account/timeout/" data-testid="nav-timeout"' in menu, url
        assert 'href="/account/timeout/#self-exclusion"' in menu, url
    assert 'id="self-exclusion"' in _html(web, "/account/timeout/")


def test_the_wallet_and_history_pages_link_the_responsible_gaming_pages(web):
    for url in ("/account/wallet/", "/account/history/"):
        links = _html(web, url).split('data-testid="rg-links"', 1)[1].split("</p>")[0]
        for href in ("/account/limits/", "/account/timeout/", "/account/timeout/#self-exclusion"):
            assert f'href="{href}"' in links, (url, href)


def test_a_player_with_no_restriction_sees_no_banner_and_may_join(web, table):
    t = table()
    for url in [*PAGES, f"/tables/{t.pk}/"]:
        assert 'data-testid="rg-banner"' not in _html(web, url), url
    lobby = _html(web, "/")
    assert f'data-testid="join-{t.pk}">Join<' in lobby
    assert 'data-testid="sit-form"' in _html(web, f"/tables/{t.pk}/")


def test_a_timed_out_player_sees_until_when_on_every_page_and_no_join_or_sit(web, table):
    t = table()
    restriction = timeout_start(user=web.user, hours=48, restriction_id=uuid.uuid4())
    until = f"{restriction.ends_at:%Y-%m-%d %H:%M} UTC"
    for url in [*PAGES, f"/tables/{t.pk}/", "/account/timeout/", "/account/limits/"]:
        html = _html(web, url)
        banner = html.split('data-testid="rg-banner"', 1)[1].split("</div>")[0]
        assert f"on a time-out until {until}" in banner, url
        assert 'data-kind="time_out"' in banner
    lobby = _html(web, "/")
    assert ">Join<" not in lobby and f'data-testid="join-{t.pk}">Watch<' in lobby
    page = _html(web, f"/tables/{t.pk}/")
    assert 'data-testid="sit-form"' not in page and 'data-testid="top-up-form"' not in page
    assert 'data-testid="restricted-note"' in page


def test_a_self_excluded_player_sees_the_banner_and_no_join(web, table):
    t = table()
    exclusion = self_exclusion_start(user=web.user, months=6, restriction_id=uuid.uuid4())
    html = _html(web, "/")
    banner = html.split('data-testid="rg-banner"', 1)[1].split("</div>")[0]
    assert f"excluded yourself until at least {exclusion.ends_at:%Y-%m-%d %H:%M} UTC" in banner
    assert ">Join<" not in html
    assert 'data-testid="sit-form"' not in _html(web, f"/tables/{t.pk}/")


def test_a_staff_hold_is_never_shown_to_the_player(web, table):
    table()
    restriction_impose(user_id=web.user.pk, kind="fraud_freeze", source="case:1",
                       reason="review", by=None)  # fmt: skip
    html = _html(web, "/")
    assert 'data-testid="rg-banner"' not in html and ">Join<" in html


@pytest.mark.parametrize("kind", ["time_out", "self_exclusion"])
def test_the_server_refuses_a_restricted_players_seat_and_writes_nothing(
    auth_client, make_user, table, kind
):
    t = table()
    user = make_user()
    fund(user, 100_000)
    if kind == "time_out":
        timeout_start(user=user, hours=24, restriction_id=uuid.uuid4())
    else:
        self_exclusion_start(user=user, months=6, restriction_id=uuid.uuid4())
    ledger = (Transfer.objects.count(), sorted(Account.objects.values_list("pk", "balance")))
    response = post(auth_client(user), tables_url(t.pk, "sit"), {"buy_in": 5_000})
    assert response.status_code == 403
    assert response.json()["code"] == "account_restricted"
    assert not Seat.objects.filter(table=t, player=user).exists()
    assert (Transfer.objects.count(), sorted(Account.objects.values_list("pk", "balance"))) == (
        ledger
    )
