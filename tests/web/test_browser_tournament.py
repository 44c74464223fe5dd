"""Two players register for a heads-up sit-and-go on its page, follow it to their table,
play it out by clicking (all in every hand) and read their places and the winner's prize
on the tournament's page: a real server, real browsers, the truth from the database."""

import time
import uuid

import pytest

from poker.models import Table
from tests.poker import conftest as poker_fixtures
from tests.support.browser import PASSWORD, browser_session
from tests.support.server import Server
from tournaments.models import Entry, Tournament
from tournaments.services import tournament_create

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player  # ``player()`` makes a user with play money

HEADS_UP = {
    "name": "Browser heads-up", "variant": "NT", "currency": "CHIPS", "buy_in": 1_000,
    "fee": 100, "bounty": 0, "starting_stack": 1_000, "seats_per_table": 2,
    "min_players": 2, "max_players": 2, "start": None,
    "levels": [{"small_blind": 50, "big_blind": 100, "ante": 0, "minutes": 30}],
    "breaks": [], "late_registration_levels": 0, "rebuy": None, "add_on": None,
    "guarantee": 0, "payouts": ["100"], "action_seconds": 120,
}  # fmt: skip


def _log_in(browser, base, user, path):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{base}/login/?next={path}")
    page.get_by_test_id("login-username").fill(user.username)
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(f"{base}{path}")
    return page


def _all_in_or_call(page):
    """Clicks the page's most aggressive action (all in) if it has the buttons: True if it
    acted."""
    for name in ("raise", "bet"):
        button = page.get_by_test_id(f"action-{name}")
        if button.is_visible():
            page.get_by_test_id("amount-input").fill("1000000")
            page.get_by_test_id("amount-input").press("Enter")
            button.click()
            return True
    for name in ("call", "check"):
        button = page.get_by_test_id(f"action-{name}")
        if button.is_visible():
            button.click()
            return True
    return False


def test_players_register_on_the_page_play_at_their_table_and_read_place_and_prize(
    make_user, player, monkeypatch
):
    from playwright.sync_api import expect

    director = make_user(role="admin")
    tournament = tournament_create(staff_user=director, key=uuid.uuid4(), **HEADS_UP)
    path = f"/tournaments/{tournament.pk}/"
    users = [player(username=f"hu-{n}") for n in ("ann", "ben")]
    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    with browser_session(server, monkeypatch) as (browser, pages):
        for user in users:
            page = _log_in(browser, base, user, path)
            pages.append(page)
            page.get_by_test_id("register").click()
            expect(page.get_by_test_id("message-success")).to_contain_text("You are registered")

        # The second registration filled it: it starts; each page leads to the table.
        (table_id,) = Table.objects.filter(tournament_id=tournament.pk).values_list("pk", flat=True)
        for page in pages:
            page.reload()
            page.get_by_test_id("your-table").click()
            page.wait_for_url(f"{base}/tables/{table_id}/")
            expect(page.get_by_test_id("tournament-bar")).to_contain_text("Level 1")
            expect(page.get_by_test_id("leave")).to_be_hidden()

        deadline = time.monotonic() + 240
        while Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.FINISHED:
            assert time.monotonic() < deadline, "the sit-and-go did not finish"
            if not any(_all_in_or_call(page) for page in pages):
                time.sleep(0.2)

        entries = {e.player_id: e for e in Entry.objects.filter(tournament=tournament)}
        for user, page in zip(users, pages, strict=True):
            entry = entries[user.pk]
            page.goto(f"{base}{path}")
            expect(page.get_by_test_id("your-place")).to_contain_text(f"You finished {entry.place}")
            if entry.place == 1:
                expect(page.get_by_test_id("your-prize")).to_have_text("2,000")
            else:
                expect(page.get_by_test_id("your-prize")).to_have_count(0)
    assert sorted(e.place for e in entries.values()) == [1, 2]
