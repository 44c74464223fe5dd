"""Staff open the live dashboard in headless Chromium (production mode: DEBUG off, the
site's strict Content-Security-Policy): the charts are drawn from our own Chart.js with
the room's figures, and when a hand is played meanwhile, the page's figures change by
themselves, without a reload. From there, risk staff watch a table live: as a spectator
during a hand, with every hole card of each hand once it has ended (poker.full_view)."""

from __future__ import annotations

import re
import uuid

import pytest

from handhistory.models import Hand
from poker.commands.seating import table_sit
from poker.models import Seat
from tests.poker import conftest as poker_fixtures
from tests.support.browser import (
    ARTIFACTS,
    DESKTOP,
    PASSWORD,
    TIMEOUT_MS,
    _collect,
    _production_server,
    _truth,
    _watch,
    browser_session,
)
from tests.support.poker import actor_for, fund, key, play_random_hands
from wallet.services import withdrawal_request

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table


class CheckCall:
    """Checks when it may, else calls: small pots, nobody busts, every hand ends."""

    def choice(self, options):
        return "check" if "check" in options else "call"


_CHART_SUM = """id => {
  const chart = Chart.getChart(id);
  return chart ? chart.data.datasets.reduce((n, d) => n + d.data.reduce((a, b) => a + b, 0), 0)
               : null;
}"""


def test_staff_watch_the_dashboard_redraw_itself_when_a_hand_is_played(
    table, player, make_user, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="Dashboard table", rake_bps=500, rake_cap=300, action_seconds=600)
    users = [player(), player()]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    rng = CheckCall()
    play_random_hands(t, users, 2, rng)
    boss = make_user("boss", role="risk")
    # A 50.00 EUR withdrawal waiting for staff: shown in euros, not as 5,000 minor units.
    fund(users[0], 10_000, currency="EUR")
    withdrawal_request(user=users[0], withdrawal_id=uuid.uuid4(), amount=5_000, currency="EUR")
    finished = Hand.objects.filter(ended_at__isnull=False).count()

    server = _production_server()
    base = f"http://127.0.0.1:{server.port}"
    errors, violations, policies = [], [], {}
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP).new_page()
        pages.append(page)
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        _watch(page, violations, policies)
        page.goto(f"{base}/staff/")
        page.wait_for_url(f"{base}/admin/login/?next=/staff/")
        page.fill("#id_username", boss.username)
        page.fill("#id_password", PASSWORD)
        page.click("input[type=submit]")
        page.wait_for_url(f"{base}/staff/")

        expect(page.get_by_test_id("players-seated")).to_have_text("2")
        expect(page.locator("#withdrawals-sums")).to_have_text("€50.00 (1)")
        expect(page.locator(f'[data-testid="tables"] tr[data-table="{t.pk}"]')).to_contain_text(
            "Dashboard table"
        )
        # Both charts are drawn (Chart.js holds them) with the room's data.
        for canvas in ("hands-chart", "rake-chart"):
            expect(page.get_by_test_id(canvas)).to_be_visible()
        assert page.evaluate(_CHART_SUM, "hands-chart") == finished > 0
        assert page.evaluate(_CHART_SUM, "rake-chart") > 0
        page.screenshot(path=str(ARTIFACTS / "staff-dashboard.png"), full_page=True)

        # A mark the page would lose on a reload; then a hand is played meanwhile.
        page.evaluate("window.__notReloaded = true")
        before = page.get_by_test_id("updated-at").get_attribute("datetime")
        play_random_hands(t, users, 1, rng)
        now_finished = Hand.objects.filter(ended_at__isnull=False).count()
        assert now_finished > finished
        page.wait_for_function(
            "n => Chart.getChart('hands-chart').data.datasets[0].data"
            ".reduce((a, b) => a + b, 0) === n",
            arg=now_finished,
        )
        assert page.get_by_test_id("updated-at").get_attribute("datetime") != before
        assert page.evaluate("window.__notReloaded") is True
        page.screenshot(path=str(ARTIFACTS / "staff-dashboard-refreshed.png"), full_page=True)
        _collect(page, violations)

        # From the dashboard to the table's live staff view: the running hand as a
        # spectator sees it, then every hole card of it once it has ended.
        t.refresh_from_db()
        running = t.current_hand_id
        page.get_by_test_id(f"watch-{t.pk}").click()
        page.wait_for_url(f"{base}/tables/{t.pk}/?full=1")
        expect(page.get_by_test_id("staff-view-banner")).to_contain_text("Staff view")
        expect(page.get_by_test_id("table-root")).to_have_attribute("data-hand", str(running))
        seats = {s.number: s.player_id for s in Seat.objects.filter(table=t)}
        for number in seats:  # card backs only, no face
            cards = page.get_by_test_id(f"seat-{number}-cards")
            expect(cards.locator(".card.back")).to_have_count(2)
            expect(cards).not_to_have_attribute("data-cards", re.compile("."))
        page.screenshot(path=str(ARTIFACTS / "staff-table-live-view.png"), full_page=True)
        play_random_hands(t, users, 1, rng)
        last = Hand.objects.filter(table=t, ended_at__isnull=False).latest("number")
        assert last.number >= Hand.objects.get(pk=running).number
        holes, _, _ = _truth(last.pk)
        expect(page.get_by_test_id("table-root")).to_have_attribute("data-full-hand", str(last.pk))
        for number, player_id in seats.items():
            expect(page.get_by_test_id(f"staff-full-seat-{number}")).to_have_attribute(
                "data-cards", holes[player_id]
            )
        page.screenshot(path=str(ARTIFACTS / "staff-table-every-card.png"), full_page=True)
        _collect(page, violations)

    assert errors == []
    assert violations == []
    assert policies[f"{base}/tables/{t.pk}/?full=1"]
    assert policies[f"{base}/staff/"] and "script-src 'self'" in policies[f"{base}/staff/"]
