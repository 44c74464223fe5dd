"""A new player in headless Chromium: signs up, sees the wallet, deposits through the
sandbox, reloads play money, reads the account history, and at the table gets the
session reminder. Screenshots in test-artifacts/. Uses the shared browser set-up of
``test_browser_table``."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from poker.commands.seating import table_create, table_sit
from tests.support import browser as harness
from tests.support.browser import (
    ARTIFACTS,
    DESKTOP,
    PASSWORD,
    TIMEOUT_MS,
    _collect,
    _watch,
    browser_session,
)
from tests.support.poker import actor_for, key
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_new_player_signs_up_deposits_reloads_and_reads_the_history(monkeypatch):
    from playwright.sync_api import expect

    server = Server()
    # Above the sign-up grant, so a new player may reload at once (without playing first).
    server.env.update(WALLET_SIGNUP_CHIPS="100000", WALLET_RELOAD_CHIPS="150000")
    base = f"http://127.0.0.1:{server.port}"
    errors: list[str] = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP).new_page()
        pages.append(page)
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        violations, policies = [], {}
        _watch(page, violations, policies)

        # Sign up from the lobby's header; deposit limits are offered first (a daily EUR
        # cap of 30.00), then the wallet shows the play chips.
        page.goto(f"{base}/")
        page.get_by_test_id("nav-signup").click()
        page.wait_for_url(f"{base}/signup/")
        page.get_by_test_id("signup-username").fill("carol")
        page.get_by_test_id("signup-password").fill(PASSWORD)
        page.get_by_test_id("signup-confirm").fill(PASSWORD)
        page.get_by_test_id("signup-submit").click()
        page.wait_for_url(f"{base}/account/limits/")
        expect(page.get_by_test_id("limits-notice")).to_contain_text("Welcome!")
        page.get_by_test_id("limit-currency").select_option("EUR")
        page.get_by_test_id("limit-period").select_option("day")
        page.get_by_test_id("limit-amount").fill("30.00")
        page.get_by_test_id("limit-submit").click()
        expect(page.get_by_test_id("limit-EUR-day")).to_have_attribute("data-limit", "3000")
        page.screenshot(path=str(ARTIFACTS / "account-signup-limits.png"), full_page=True)
        page.get_by_test_id("nav-wallet").click()
        page.wait_for_url(f"{base}/account/wallet/")
        expect(page.get_by_test_id("nav-user")).to_have_text("carol")
        expect(page.get_by_test_id("balance-CHIPS")).to_have_attribute("data-balance", "100000")
        page.screenshot(path=str(ARTIFACTS / "account-wallet-new.png"), full_page=True)
        _collect(page, violations)

        # A sandbox deposit, typed in euros: confirmed at once, listed, and in the balance.
        form = page.get_by_test_id("deposit-form")
        form.locator("select[name=currency]").select_option("USD")
        expect(form.get_by_test_id("deposit-unit")).to_have_text("USD")  # the label follows
        form.locator("select[name=currency]").select_option("EUR")
        expect(form.get_by_test_id("deposit-unit")).to_have_text("EUR")
        form.get_by_test_id("deposit-amount").fill("25")
        form.get_by_test_id("deposit-submit").click()
        expect(page.get_by_test_id("message-success")).to_have_text("Deposit of €25.00: confirmed.")
        expect(page.get_by_test_id("balance-EUR")).to_have_attribute("data-balance", "2500")
        expect(page.get_by_test_id("balance-EUR").locator("td").nth(1)).to_have_text("25.00")
        expect(page.get_by_test_id("deposit-row").first).to_have_attribute(
            "data-status", "confirmed"
        )
        page.screenshot(path=str(ARTIFACTS / "account-wallet-deposit.png"), full_page=True)

        # A second deposit would pass the day's limit: refused in words, nothing moves.
        form = page.get_by_test_id("deposit-form")
        form.get_by_test_id("deposit-amount").fill("10")
        form.locator("select[name=currency]").select_option("EUR")
        form.get_by_test_id("deposit-submit").click()
        expect(page.get_by_test_id("message-error")).to_have_text(
            "Your deposit limit is €30.00 per 24 hours; €25.00 deposited in that time, €5.00 left."
        )
        expect(page.get_by_test_id("balance-EUR")).to_have_attribute("data-balance", "2500")
        page.screenshot(path=str(ARTIFACTS / "account-wallet-limit-hit.png"), full_page=True)

        # Reload play money: up to 150,000; a second reload is refused in words.
        page.get_by_test_id("reload-submit").click()
        expect(page.get_by_test_id("message-success")).to_have_text(
            "Play money reloaded: 50,000 CHIPS added."
        )
        expect(page.get_by_test_id("balance-CHIPS")).to_have_attribute("data-balance", "150000")
        page.screenshot(path=str(ARTIFACTS / "account-wallet-reload.png"), full_page=True)
        page.get_by_test_id("reload-submit").click()
        expect(page.get_by_test_id("message-error")).to_have_text(
            "You hold 150,000 CHIPS; a reload tops up to 150,000 CHIPS only."
        )
        _collect(page, violations)

        # The history: this month's totals and transactions.
        page.get_by_test_id("nav-history").click()
        page.wait_for_url(f"{base}/account/history/")
        month = timezone.now().strftime("%Y-%m")
        expect(page.get_by_test_id(f"history-{month}-EUR")).to_have_attribute(
            "data-deposits", "2500"
        )
        expect(page.get_by_test_id(f"history-{month}-CHIPS")).to_have_attribute(
            "data-play-money", "150000"
        )
        # The transactions of the months: the reload and the sign-up grant among them.
        rows = page.get_by_test_id("transaction-row")
        expect(rows.and_(page.locator("[data-code=play_money_reload]"))).to_have_attribute(
            "data-amount", "50000"
        )
        expect(rows.and_(page.locator("[data-code=signup_grant]"))).to_have_attribute(
            "data-amount", "100000"
        )
        page.screenshot(path=str(ARTIFACTS / "account-history.png"), full_page=True)
        _collect(page, violations)

        # On a phone every account page fits its width: a wide table scrolls in its box.
        page.set_viewport_size({"width": 390, "height": 844})
        for path in ("/account/history/", "/account/wallet/", "/account/limits/"):
            page.goto(f"{base}{path}")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
        page.set_viewport_size(DESKTOP)

        # Seated at a table (and at a euro one), the page reminds the player of each
        # session on the interval, each net in its currency's units (the browser's clock is
        # moved on an hour instead of waiting).
        carol = get_user_model().objects.get(username="carol")
        table = table_create(
            name="Reminder table", variant="NT", small_blind=50, big_blind=100,
            min_buy_in=2_000, max_buy_in=20_000, max_seats=6,
        )  # fmt: skip
        table_sit(table_id=table.pk, player_id=carol.pk, buy_in=10_000, key=key(),
                  actor=actor_for(carol))  # fmt: skip
        euro = table_create(
            name="Euro table", variant="NT", small_blind=5, big_blind=10,
            min_buy_in=200, max_buy_in=2_000, max_seats=6, currency="EUR",
        )  # fmt: skip
        table_sit(table_id=euro.pk, player_id=carol.pk, buy_in=2_000, key=key(),
                  actor=actor_for(carol))  # fmt: skip
        page.clock.install()
        page.goto(f"{base}/tables/{table.pk}/")
        reminder = page.get_by_test_id("session-reminder")
        expect(reminder).to_be_hidden()
        page.wait_for_load_state("networkidle")
        page.clock.fast_forward(60 * 60 * 1000)
        expect(reminder).to_be_visible()
        said = page.get_by_test_id("session-reminder-text")
        # An hour on (the browser's clock jumps it): the hour is counted.
        expect(said).to_have_text(re.compile(r"^Reality check: 1 h \d+ min played, .*\.$"))
        expect(said).to_contain_text("net result 0 CHIPS")
        expect(said).to_contain_text("net result €0.00")
        page.screenshot(path=str(ARTIFACTS / "table-session-reminder.png"))
        page.get_by_test_id("session-reminder-dismiss").click()
        expect(reminder).to_be_hidden()
        # Half an interval later: nothing; a whole one: the next reminder.
        page.clock.fast_forward(30 * 60 * 1000)
        harness.drawn(page)
        expect(reminder).to_be_hidden()
        page.clock.fast_forward(30 * 60 * 1000)
        expect(reminder).to_be_visible()
        _collect(page, violations)

    assert errors == [], errors
    assert violations == [], violations
