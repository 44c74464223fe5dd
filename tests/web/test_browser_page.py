"""The table page as a player sees it, in headless Chromium against a real server: honest
amount labels, fixed-limit controls, a layout that fits a phone, the result held on screen
for the server's pause between hands, the rebuy offered to a busted player, and a clock
that says when the time bank is being drawn.

Uses the browser set-up of ``test_browser_table`` (``manage.py serve`` as a subprocess on
the test database). Screenshots land in ``test-artifacts/``.
"""

import itertools
import re
import time

import pytest

from handhistory.models import Event, Hand
from ledger.audit import ledger_audit
from poker.engine.cards import format_cards
from poker.models import Seat, Table
from poker.selectors import table_view
from tests.poker import conftest as poker_fixtures
from tests.support import browser as harness
from tests.support.browser import ARTIFACTS, DESKTOP
from tests.support.table_page import PHONES, _fold_first_hand, _seat_all, _session, _user_at

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table


def _boxes(page, selector):
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map((e) => {
             const b = e.getBoundingClientRect();
             return {seat: e.dataset.seat, l: b.left, t: b.top, r: b.right, b: b.bottom};
           })""",
        selector,
    )


def _overlap(a, b):
    """The overlapping area of two boxes (touching edges are not an overlap)."""
    w = min(a["r"], b["r"]) - max(a["l"], b["l"])
    h = min(a["b"], b["b"]) - max(a["t"], b["t"])
    return max(0.0, w) * max(0.0, h)


def _check_layout(page, hero_seat, name):
    """Not wider than the screen, no two seats overlapping, the hero's bet clear of their
    seat; and a screenshot to look at."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id(f"bet-{hero_seat}")).to_be_visible()
    harness.drawn(page)  # the chips are placed once the seats have their size
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{name}: the page is {width[0]} px wide on a {width[1]} px screen"
    seats = _boxes(page, ".seat")
    assert len(seats) >= 6
    for a, b in itertools.combinations(seats, 2):
        assert _overlap(a, b) < 1, f"{name}: seats {a['seat']} and {b['seat']} overlap: {a} {b}"
        assert a["l"] >= 0 and a["r"] <= width[1], f"{name}: seat {a['seat']} is off screen"
    (hero,) = [s for s in seats if s["seat"] == str(hero_seat)]
    (bet,) = _boxes(page, f'.bet[data-seat="{hero_seat}"]')
    assert _overlap(hero, bet) == 0, f"{name}: the hero's bet hides under their seat"
    for chip in _boxes(page, ".bet, .dealer"):
        for seat in seats:
            assert _overlap(chip, seat) == 0, (
                f"{name}: a chip of seat {chip['seat']} is under {seat}"
            )
    page.screenshot(path=str(ARTIFACTS / f"page-{name}.png"), full_page=True)


def _actor_page(session, t, users, viewport=DESKTOP):
    """The page of the player to act, and their legal actions."""
    view = table_view(table_id=t.pk, viewer_id=None)
    actor = _user_at(users, view, view["hand"]["actor_seat"])
    legal = table_view(table_id=t.pk, viewer_id=actor.pk)["you"]["legal_actions"]
    return session.open(actor, t.pk, viewport), legal


def test_the_raise_button_says_all_in_only_when_the_amount_is_the_whole_stack(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    plo = table(name="Deep PLO", variant="PO", action_seconds=600)
    nl = table(name="Deep NL", variant="NT", action_seconds=600)
    plo_users, nl_users = [player(), player()], [player(), player()]
    _seat_all(plo, plo_users, 20_000)
    _seat_all(nl, nl_users, 20_000)
    with _session(monkeypatch) as session:
        # Pot-limit: the largest raise is the pot, far below the 20,000 behind.
        page, legal = _actor_page(session, plo, plo_users)
        assert legal["max_to"] < 20_000
        expect(page.get_by_test_id("size-max")).to_have_text("Max")
        page.get_by_test_id("size-max").click()
        expect(page.get_by_test_id("amount-input")).to_have_value(str(legal["max_to"]))
        expect(page.get_by_test_id("action-raise")).to_have_text(f"Raise to {legal['max_to']:,}")
        # No-limit: the maximum is the whole stack, and says so.
        page, legal = _actor_page(session, nl, nl_users)
        assert legal["max_to"] == 20_000
        expect(page.get_by_test_id("size-max")).to_have_text("All-in")
        page.get_by_test_id("size-max").click()
        expect(page.get_by_test_id("action-raise")).to_have_text("Raise to 20,000 (all-in)")
        page.get_by_test_id("size-min").click()
        expect(page.get_by_test_id("action-raise")).to_have_text(f"Raise to {legal['min_to']:,}")


def test_fixed_limit_offers_its_one_raise_size_without_slider_or_pot_buttons(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    fl = table(name="Limit", variant="FT", action_seconds=600)
    users = [player(), player()]
    _seat_all(fl, users, 10_000)
    with _session(monkeypatch) as session:
        page, legal = _actor_page(session, fl, users)
        assert legal["min_to"] == legal["max_to"] == 200
        expect(page.get_by_test_id("action-raise")).to_have_text("Raise to 200")
        expect(page.get_by_test_id("sizing")).to_be_hidden()
        for testid in ("amount-range", "amount-input", "size-half", "size-pot", "size-max"):
            expect(page.get_by_test_id(testid)).to_be_hidden()
        page.get_by_test_id("action-raise").click()
        expect(page.get_by_test_id("log")).to_contain_text("raises to 200")


def test_the_page_fits_360_and_390_px_phones_with_no_seat_over_another_or_over_a_bet(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    nl = table(name="Six-max NL", variant="NT", max_seats=6, action_seconds=600)
    fl = table(name="Nine-max Limit", variant="FT", max_seats=9, action_seconds=600)
    nl_users = [player(username=f"nl_player_{i}") for i in range(6)]
    fl_users = [player(username=f"limit{i}") for i in range(9)]
    for t, users in ((nl, nl_users), (fl, fl_users)):
        _seat_all(t, users, 10_000)
        _fold_first_hand(t, users)  # the next hand deals everyone in: a full ring
    with _session(monkeypatch) as session:
        # At a full 6-max and a full 9-max table, seen by the big blind (a bet in front of
        # their own seat, at the bottom), on phones and a desktop.
        for t, users in ((nl, nl_users), (fl, fl_users)):
            view = table_view(table_id=t.pk, viewer_id=None)
            bb_seat = next(s["seat"] for s in view["seats"] if s["bet"] == t.big_blind)
            page = session.open(_user_at(users, view, bb_seat), t.pk)
            for viewport in (*PHONES, DESKTOP):
                page.set_viewport_size(viewport)
                _check_layout(page, bb_seat, f"{t.max_seats}max-{viewport['width']}")
        # The player to act, with every control showing, on the narrowest phone.
        page, _ = _actor_page(session, nl, nl_users, PHONES[0])
        expect(page.get_by_test_id("sizing")).to_be_visible()
        width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], f"the acting page is {width[0]} px on {width[1]} px"
        page.screenshot(path=str(ARTIFACTS / "page-acting-360.png"), full_page=True)


def test_the_result_stays_for_the_pause_and_a_busted_player_rebuys_from_the_page(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    # A two-second action time: the time bank (30 s) is drawn on every turn after it.
    t = table(name="Pause and rebuy", max_seats=6, action_seconds=2)
    alice, bob = player(username="alice"), player(username="bob")
    users = [alice, bob]
    # The one test server that pauses between hands (the rest of the suite runs with 0).
    with _session(monkeypatch, {"POKER_HAND_PAUSE_MS": "6000"}) as session:
        by_user = {u.pk: session.open(u, t.pk) for u in users}
        _seat_all(t, users, 2_000)  # equal stacks: an all-in and a call bust someone
        for _ in range(20):
            view = _dealt(t)
            hand_id = view["hand"]["id"]
            for page in session.pages:
                expect(page.get_by_test_id("table-root")).to_have_attribute(
                    "data-hand", str(hand_id)
                )
            # The actor's clock shows the action time, then that the time bank is running.
            shover = _user_at(users, view, view["hand"]["actor_seat"])
            page = by_user[shover.pk]
            clock = page.get_by_test_id("clock")
            expect(clock).to_have_attribute("data-phase", "time-bank")
            expect(clock).to_contain_text("Time bank:")
            expect(page.get_by_test_id(f"seat-{view['hand']['actor_seat']}-clock")).to_contain_text(
                "bank"
            )
            page.get_by_test_id("size-max").click()
            expect(page.get_by_test_id("action-raise")).to_contain_text("(all-in)")
            page.get_by_test_id("action-raise").click()
            caller = next(u for u in users if u is not shover)
            expect(by_user[caller.pk].get_by_test_id("action-call")).to_be_visible()
            by_user[caller.pk].get_by_test_id("action-call").click()

            # The pause: no hand on the server, and every page still shows the result.
            for page in session.pages:
                expect(page.get_by_test_id("next-hand")).to_contain_text("Next hand in")
                expect(page.get_by_test_id("result").first).to_contain_text("wins")
                expect(page.get_by_test_id("board")).to_have_attribute(
                    "data-cards", _board_of(hand_id)
                )
                expect(page.get_by_test_id("last-hand")).to_be_visible()
            assert Table.objects.get(pk=t.pk).current_hand_id is None
            assert Hand.objects.get(pk=hand_id).ended_at is not None
            for i, page in enumerate(session.pages):
                page.screenshot(path=str(ARTIFACTS / f"page-pause-{i}.png"), full_page=True)
            busted = [s for s in Seat.objects.filter(table=t) if s.stake_account.balance == 0]
            if busted:
                break
            # A split pot: nobody busted; the sweeper deals the next hand after the pause.
        else:
            raise AssertionError("nobody busted in 20 all-ins")

        # The busted player is sat out and offered a rebuy; the winner waits alone.
        (seat,) = busted
        loser = next(u for u in users if u.pk == seat.player_id)
        page = by_user[loser.pk]
        expect(page.get_by_test_id(f"seat-{seat.number}-state")).to_have_text("out of chips")
        expect(page.get_by_test_id("busted-note")).to_be_visible()
        expect(page.get_by_test_id("sit-in")).to_be_hidden()
        expect(page.get_by_test_id("top-up-submit")).to_have_text("Rebuy and sit in")
        assert Seat.objects.get(pk=seat.pk).state == Seat.State.SITTING_OUT
        # The pause ends with nobody to deal to: the countdown goes, the result stays.
        for p in session.pages:
            expect(p.get_by_test_id("next-hand")).to_be_hidden()
            expect(p.get_by_test_id("hand-info")).to_have_text("Waiting for players…")
        page.screenshot(path=str(ARTIFACTS / "page-busted.png"), full_page=True)

        page.get_by_test_id("top-up-amount").fill("3000")
        page.get_by_test_id("top-up-submit").click()
        for p in session.pages:
            expect(p.get_by_test_id("table-root")).not_to_have_attribute("data-hand", str(hand_id))
            expect(p.get_by_test_id(f"seat-{seat.number}-stack")).not_to_have_text("0")
        expect(page.get_by_test_id("top-up-form")).to_be_hidden()
        expect(page.get_by_test_id("hole-cards")).to_have_attribute("data-cards", re.compile(".+"))
        new_hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
        assert loser.pk in new_hand.player_ids
        assert ledger_audit().ok


def _dealt(t, seconds=60):
    """The public view once a hand runs (after a split pot the sweeper deals the next one
    when the pause is over)."""
    deadline = time.monotonic() + seconds
    while (view := table_view(table_id=t.pk, viewer_id=None))["hand"] is None:
        assert time.monotonic() < deadline, "no hand was dealt after the pause"
        time.sleep(0.2)
    return view


def _board_of(hand_id):
    events = Event.objects.filter(stream=f"hand-{hand_id}", type="BoardDealt").order_by("seq")
    return "".join(format_cards(e.payload["cards"]) for e in events)
