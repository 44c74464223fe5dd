"""The pages work under their Content-Security-Policy, in a real browser, in production mode.

A production-mode server (``DEBUG=0``; over plain http, so with the https redirect and
secure cookies turned off) serves the lobby, the login page, a live table where a player
acts by clicking, and the API docs, to headless Chromium. Every page must arrive with a
policy, and the browser must report no ``securitypolicyviolation`` event and no CSP error
on the console. A deliberate inline script at the end proves the listener would have
caught one.
"""

import time

import pytest

from poker.models import Table
from tests.poker import conftest as poker_fixtures
from tests.support.browser import (
    BUY_IN,
    _collect,
    _log_in_and_open,
    _production_server,
    _version,
    _watch,
    browser_session,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table


def test_lobby_login_table_and_api_docs_raise_no_content_security_policy_violation(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="CSP table", action_seconds=300)
    alice, bob = player(username="alice"), player(username="bob")
    server = _production_server()
    base = f"http://127.0.0.1:{server.port}"
    errors, violations, policies = [], [], {}
    with browser_session(server, monkeypatch) as (browser, pages):
        # The lobby, as a visitor.
        visitor = browser.new_context().new_page()
        pages.append(visitor)
        _watch(visitor, violations, policies)
        visitor.goto(f"{base}/")
        expect(visitor.get_by_test_id(f"lobby-row-{t.pk}")).to_be_visible()
        _collect(visitor, violations)

        # Login (its page and its form post) and the live table, for two players.
        def prepare(page):
            _watch(page, violations, policies)

        for user in (alice, bob):
            pages.append(_log_in_and_open(browser, base, user, t.pk, errors, prepare))
        alice_page, bob_page = pages[1:]
        for page in (alice_page, bob_page):
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
            page.get_by_test_id("sit-buy-in").fill(str(BUY_IN))
            page.get_by_test_id("sit-submit").click()
            expect(page.get_by_test_id("sit-form")).to_be_hidden()

        # A hand starts; whoever has the buttons plays one action by clicking.
        deadline = time.monotonic() + 120
        acted = False
        while not acted:
            assert time.monotonic() < deadline, "nobody got an action to click"
            for page in (alice_page, bob_page):
                for name in ("call", "check"):
                    button = page.get_by_test_id(f"action-{name}")
                    if button.is_visible():
                        before = _version(page)
                        button.click()
                        expect(page.get_by_test_id("table-root")).not_to_have_attribute(
                            "data-version", str(before)
                        )
                        acted = True
                        break
                if acted:
                    break
            else:
                time.sleep(0.1)
        assert Table.objects.get(pk=t.pk).current_hand_id is not None
        # The seats are placed by inline positions, set through the CSSOM.
        seat = alice_page.locator('[data-testid^="seat-"][style]').first
        assert "left" in seat.get_attribute("style")
        for page in (alice_page, bob_page):
            _collect(page, violations)

        # The interactive API docs render their operations.
        docs = alice_page.context.new_page()
        pages.append(docs)
        _watch(docs, violations, policies)
        docs.goto(f"{base}/api/docs/")
        expect(docs.locator(".opblock").first).to_be_visible()
        _collect(docs, violations)

        assert violations == [], violations
        for path in ("/", "/login/", f"/tables/{t.pk}/", "/api/docs/"):
            url = next((u for u in policies if u.split("?")[0] == base + path), None)
            assert url is not None, (path, list(policies))
            assert "script-src 'self'" in (policies[url] or ""), (path, policies[url])

        # The listener is live: an inline script is refused and reported.
        docs.evaluate(
            "() => { const s = document.createElement('script');"
            " s.textContent = 'window.ran = 1'; document.body.append(s); }"
        )
        expect(docs.locator("body")).to_be_visible()
        deadline = time.monotonic() + 10
        while not docs.evaluate("window.__csp.length") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert docs.evaluate("window.ran") is None
        assert docs.evaluate("window.__csp.length") >= 1
    assert errors == [], errors
