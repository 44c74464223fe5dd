"""A player opens "My hands" in headless Chromium, opens a hand and steps through it: the
stacks and the board change step by step, and the last step shows the settled stacks and
the winners. Uses the shared browser set-up of ``test_browser_table``."""

from __future__ import annotations

import pytest

from handhistory.exports.records import Viewer, hand_records
from handhistory.models import Hand, PlayerHandResult
from handhistory.readable import readable_hand
from poker.commands.seating import table_sit
from poker.engine.privacy import seed_may_be_public
from tests.poker import conftest as poker_fixtures
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
from tests.support.poker import actor_for, key, play_random_hands
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table


class CheckCall:
    """Checks when it may, else calls: every hand goes to a showdown on a full board."""

    def choice(self, options):
        return "check" if "check" in options else "call"


def test_a_player_replays_a_hand_from_my_hands_step_by_step(table, player, monkeypatch):
    from playwright.sync_api import expect

    t = table(name="Replay table", action_seconds=600)
    alice, bob = player(username="alice"), player(username="bob")
    for u in (alice, bob):
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    play_random_hands(t, [alice, bob], 2, CheckCall())
    hand_id = Hand.objects.filter(table=t, ended_at__isnull=False).order_by("pk").first().pk
    (record,) = hand_records([hand_id])
    readable = readable_hand(record, Viewer(user_id=alice.pk))
    steps = readable["steps"]
    settled = dict(
        PlayerHandResult.objects.filter(hand_id=hand_id).values_list("seat", "final_stack")
    )

    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP).new_page()
        pages.append(page)
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # Both pages work under the Content-Security-Policy: no violation is reported.
        violations, policies = [], {}
        _watch(page, violations, policies)
        page.goto(f"{base}/login/?next=/hands/")
        page.get_by_test_id("login-username").fill("alice")
        page.get_by_test_id("login-password").fill(PASSWORD)
        page.get_by_test_id("login-submit").click()
        page.wait_for_url(f"{base}/hands/")

        expect(page.get_by_test_id(f"hand-row-{hand_id}")).to_be_visible()
        me = next(p for p in readable["players"] if p["username"] == "alice")
        expect(page.get_by_test_id(f"hand-cards-{hand_id}")).to_have_attribute(
            "data-cards", me["cards"]
        )
        page.screenshot(path=str(ARTIFACTS / "my-hands.png"), full_page=True)
        _collect(page, violations)
        page.get_by_test_id(f"hand-open-{hand_id}").click()
        page.wait_for_url(f"{base}/hands/{hand_id}/")

        root = page.get_by_test_id("replayer-root")
        expect(root).to_have_attribute("data-step", "0")
        board = page.get_by_test_id("board")
        expect(board).to_have_attribute("data-cards", "")
        for s in steps[0]["seats"]:
            expect(page.get_by_test_id(f"seat-{s['seat']}")).to_have_attribute(
                "data-stack", "10000"
            )
        # Forward: the first blind goes in and its seat's stack drops.
        blind = steps[1]
        assert blind["kind"] == "blind"
        page.get_by_test_id("step-forward").click()
        expect(root).to_have_attribute("data-step", "1")
        expect(page.get_by_test_id("step-text")).to_have_text(blind["text"])
        poster = blind["seat"]
        posted = next(s for s in blind["seats"] if s["seat"] == poster)
        expect(page.get_by_test_id(f"seat-{poster}")).to_have_attribute(
            "data-stack", str(posted["stack"])
        )
        expect(page.get_by_test_id(f"bet-{poster}")).to_have_attribute(
            "data-amount", str(posted["bet"])
        )
        # The arrow keys walk on to the flop; the board appears.
        flop = next(k for k, s in enumerate(steps) if s["kind"] == "board")
        for _ in range(flop - 1):
            page.keyboard.press("ArrowRight")
        expect(root).to_have_attribute("data-step", str(flop))
        expect(board).to_have_attribute("data-cards", steps[flop]["board"])
        assert len(steps[flop]["board"]) == 6
        page.screenshot(path=str(ARTIFACTS / "replayer-flop.png"), full_page=True)
        page.keyboard.press("ArrowLeft")
        expect(root).to_have_attribute("data-step", str(flop - 1))
        expect(board).to_have_attribute("data-cards", "")
        # The last step: the full board, the settled stacks, the winners and shown cards.
        page.get_by_test_id("step-last").click()
        expect(root).to_have_attribute("data-step", str(len(steps) - 1))
        expect(board).to_have_attribute("data-cards", readable["board"])
        assert len(readable["board"]) == 10
        for seat, stack in settled.items():
            expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute("data-stack", str(stack))
        expect(page.get_by_test_id("hand-result")).to_be_visible()
        winners = page.get_by_test_id("winners").locator(".winner-line")
        expect(winners).to_have_count(len(steps[-1]["winners"]))
        for p in readable["players"]:
            if p["showed"]:
                expect(page.get_by_test_id(f"seat-{p['seat']}-cards")).to_have_attribute(
                    "data-cards", p["cards"]
                )
        page.screenshot(path=str(ARTIFACTS / "replayer-last-step.png"), full_page=True)
        # On a phone the replayer fits the screen's width.
        page.set_viewport_size({"width": 390, "height": 844})
        harness.drawn(page)  # the chips are placed once the seats have their size
        width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], f"the replayer is {width[0]} px wide on {width[1]} px"
        page.screenshot(path=str(ARTIFACTS / "replayer-390.png"), full_page=True)
        page.set_viewport_size(DESKTOP)
        # The deal's proof under the replayer (fairness.js on the page's #fairness section):
        # the commitment the hand started with, and the deal verified in the browser when
        # everyone showed (else the seed stays secret and the page says why).
        expect(page.get_by_test_id("fairness-commitment")).to_contain_text(
            record.started.deck_commitment
        )
        if seed_may_be_public(record.events):
            page.get_by_test_id("fairness-verify").click()
            expect(page.get_by_test_id("fairness-verdict")).to_contain_text("Verified")
        else:
            expect(page.get_by_test_id("fairness-withheld")).to_be_visible()
        # The slider goes anywhere: back to the start.
        page.get_by_test_id("step-range").fill("0")
        expect(root).to_have_attribute("data-step", "0")
        expect(page.get_by_test_id("step-first")).to_be_disabled()
        _collect(page, violations)
        assert violations == [], violations
        assert policies[f"{base}/hands/{hand_id}/"] and policies[f"{base}/hands/"]
    assert errors == [], errors
