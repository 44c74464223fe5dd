"""A player sets a deposit limit, is refused a deposit above it, raises it and sees the
raise wait, takes a 24-hour time-out and is offered no seat (and refused one); a player
finds the break pages from the header's account menu, and a running self-exclusion shows
on every page, on a phone and on a desktop: in a real browser against a real server (the
pattern of ``test_browser_table``), a screenshot at each step."""

from __future__ import annotations

import uuid

import pytest

from poker.models import Seat
from tests.poker import conftest as poker_fixtures
from tests.support.browser import ARTIFACTS, DESKTOP, PASSWORD, _collect, _watch, browser_session
from tests.support.server import Server
from wallet.models import Deposit, DepositLimit, Restriction

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table


def _shot(page, name):
    page.screenshot(path=str(ARTIFACTS / f"responsible-{name}.png"), full_page=True)


def _post(page, base, path, body):
    """A REST POST with the page's session (and its CSRF token)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post(
        f"{base}{path}",
        data=body,
        headers={"X-CSRFToken": token, "Idempotency-Key": str(uuid.uuid4()),
                 "Referer": f"{base}/account/limits/"},
    )  # fmt: skip


def _deposit(page, base, amount):
    """A deposit through the REST API with the page's session."""
    return _post(page, base, "/api/v1/wallet/deposits/", {"amount": amount, "currency": "EUR"})


def test_a_player_limits_deposits_then_takes_a_time_out_and_is_refused_a_seat(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="Break table", action_seconds=300)
    carol = player(username="carol")
    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP).new_page()
        pages.append(page)
        violations, policies = [], {}
        _watch(page, violations, policies)  # the pages run under the strict policy
        page.goto(f"{base}/login/?next=/account/limits/")
        page.get_by_test_id("login-username").fill("carol")
        page.get_by_test_id("login-password").fill(PASSWORD)
        page.get_by_test_id("login-submit").click()
        page.wait_for_url(f"{base}/account/limits/")

        # 1. A daily limit of €50.00: it holds at once.
        page.get_by_test_id("limit-currency").select_option("USD")
        expect(page.get_by_test_id("limit-unit")).to_have_text("USD")  # the label follows
        page.get_by_test_id("limit-currency").select_option("EUR")
        expect(page.get_by_test_id("limit-unit")).to_have_text("EUR")
        page.get_by_test_id("limit-period").select_option("day")
        page.get_by_test_id("limit-amount").fill("50.00")
        page.get_by_test_id("limit-submit").click()
        expect(page.get_by_test_id("limits-notice")).to_contain_text("holds now")
        expect(page.get_by_test_id("limit-EUR-day-amount")).to_have_text("50.00")
        _shot(page, "1-limit-set")

        # 2. A deposit above it is refused; one within it lands.
        refused = _deposit(page, base, 6_000)
        assert refused.status == 403, refused.text()
        assert refused.json()["code"] == "deposit_limit_reached"
        assert refused.json()["extra"]["remaining"] == 5_000
        assert _deposit(page, base, 3_000).status == 201
        page.reload()
        expect(page.get_by_test_id("limit-EUR-day-left")).to_have_text("20.00")
        _shot(page, "2-deposit-refused-and-left")
        assert [d.amount for d in Deposit.objects.filter(user=carol)] == [3_000]

        # 3. Raising it waits: shown as pending, with the date it holds from.
        page.get_by_test_id("limit-period").select_option("day")
        page.get_by_test_id("limit-amount").fill("200")
        page.get_by_test_id("limit-submit").click()
        expect(page.get_by_test_id("limits-notice")).to_contain_text("holds from")
        pending_from = DepositLimit.objects.get(user=carol, period="day").pending_from
        expect(page.get_by_test_id("limit-EUR-day-pending")).to_have_text(
            f"€200.00 from {pending_from:%Y-%m-%d %H:%M} UTC"
        )
        expect(page.get_by_test_id("limit-EUR-day-amount")).to_have_text("50.00")
        _shot(page, "3-raise-pending")
        assert _deposit(page, base, 3_000).status == 403  # still the 50.00 limit

        # 4. A 24-hour time-out.
        _collect(page, violations)
        page.get_by_test_id("to-timeout").click()
        page.wait_for_url(f"{base}/account/timeout/")
        expect(page.get_by_test_id("in-force-none")).to_be_visible()
        page.get_by_test_id("timeout-hours").select_option("24")
        page.get_by_test_id("timeout-submit").click()
        ends_at = Restriction.objects.get(user=carol, kind="time_out").ends_at
        expect(page.get_by_test_id("in-force-time_out")).to_contain_text(
            f"until {ends_at:%Y-%m-%d %H:%M} UTC"
        )
        _shot(page, "4-time-out")
        _collect(page, violations)
        assert violations == [], violations
        assert all(policies.get(f"{base}{p}") for p in ("/account/limits/", "/account/timeout/"))

        # 5. The table offers no seat, says until when, and the server refuses one anyway.
        page.goto(f"{base}/tables/{t.pk}/")
        expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
        expect(page.get_by_test_id("rg-banner")).to_contain_text(
            f"time-out until {ends_at:%Y-%m-%d %H:%M} UTC"
        )
        expect(page.get_by_test_id("restricted-note")).to_be_visible()
        expect(page.get_by_test_id("sit-form")).to_have_count(0)
        expect(page.locator(".seat.choosable")).to_have_count(0)
        refused = _post(page, base, f"/api/v1/tables/{t.pk}/sit/", {"buy_in": 5_000})
        assert refused.status == 403 and refused.json()["code"] == "account_restricted"
        assert "time-out until" in refused.json()["message"]
        _shot(page, "5-no-seat")
        assert not Seat.objects.filter(player=carol).exists()


PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "desktop"])
def test_the_account_menu_leads_to_self_exclusion_which_then_shows_on_every_page(
    table, player, monkeypatch, viewport
):
    from playwright.sync_api import expect

    t = table(name="Quiet table", action_seconds=300)
    player(username="dana")
    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    name = "phone" if viewport is PHONE else "desktop"
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=viewport).new_page()
        pages.append(page)
        violations, policies = [], {}
        _watch(page, violations, policies)
        page.goto(f"{base}/login/?next=/account/wallet/")
        page.get_by_test_id("login-username").fill("dana")
        page.get_by_test_id("login-password").fill(PASSWORD)
        page.get_by_test_id("login-submit").click()
        page.wait_for_url(f"{base}/account/wallet/")
        expect(page.get_by_test_id("rg-links")).to_be_visible()
        expect(page.get_by_test_id("nav-self-exclusion")).to_be_hidden()  # the menu is closed

        page.get_by_test_id("nav-user").click()
        expect(page.get_by_test_id("nav-limits")).to_be_visible()
        expect(page.get_by_test_id("nav-timeout")).to_be_visible()
        _shot(page, f"menu-{name}")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.get_by_test_id("nav-self-exclusion").click()
        page.wait_for_url(f"{base}/account/timeout/#self-exclusion")
        page.get_by_test_id("exclusion-months").select_option("6")
        page.get_by_test_id("exclusion-confirm").check()
        page.get_by_test_id("exclusion-submit").click()
        ends_at = Restriction.objects.get(user__username="dana", kind="self_exclusion").ends_at
        until = f"until at least {ends_at:%Y-%m-%d %H:%M} UTC"
        expect(page.get_by_test_id("rg-banner")).to_contain_text(until)

        for path in ("/", "/account/wallet/", "/account/history/", f"/tables/{t.pk}/"):
            page.goto(f"{base}{path}")
            expect(page.get_by_test_id("rg-banner")).to_contain_text(until)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], path
            _collect(page, violations)
        expect(page.get_by_test_id("sit-form")).to_have_count(0)
        expect(page.get_by_test_id("restricted-note")).to_be_visible()
        _shot(page, f"excluded-table-{name}")
        page.goto(f"{base}/")
        expect(page.get_by_test_id(f"join-{t.pk}")).to_have_text("Watch")
        _shot(page, f"excluded-lobby-{name}")
        _collect(page, violations)
        assert violations == [], violations
