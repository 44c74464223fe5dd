"""The action bar on a phone: every set of buttons a turn can offer (check/bet, fold/call/
raise, a call that is all-in, fixed-limit) fits a 360 and a 390 px screen, each button
whole and its label uncut; the labels follow what is typed and say "all-in" when the call
takes the whole stack. Leaving asks first while a hand of yours is live, and the session
reminder offers to leave. Headless Chromium against a real server (``test_browser_page``'s
set-up); screenshots in ``test-artifacts/``.
"""

import re
from datetime import UTC, datetime, timedelta

import pytest

from handhistory.models import Event, Hand
from poker.commands.play import table_act
from poker.models import Seat, Table
from poker.selectors import table_view
from tests.poker import conftest as poker_fixtures
from tests.support.browser import ARTIFACTS, DESKTOP, _log_in_and_open
from tests.support.poker import actor_for, key
from tests.support.table_page import PHONES, _fold_first_hand, _seat_all, _session, _user_at

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SKEW_S = 40

player = poker_fixtures.player
table = poker_fixtures.table

# Every visible control of the hero bar: off the screen, or with its label cut.
_MISFITS = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const e of document.querySelectorAll(".hero button, .hero input")) {
    if (!e.getClientRects().length) continue; // hidden
    const b = e.getBoundingClientRect();
    const name = e.dataset.testid || e.className;
    if (b.left < 0 || b.right > width) out.push(`${name} spans ${b.left}..${b.right} of ${width}`);
    if (e.tagName === "BUTTON" && e.scrollWidth > e.clientWidth + 1) {
      out.push(`${name} cuts its label "${e.textContent}" (${e.scrollWidth} > ${e.clientWidth})`);
    }
  }
  return out;
}"""


def _legal(t, users):
    view = table_view(table_id=t.pk, viewer_id=None)
    actor = _user_at(users, view, view["hand"]["actor_seat"])
    return actor, table_view(table_id=t.pk, viewer_id=actor.pk)["you"]["legal_actions"]


def _play(t, users, decide):
    """Acts for whoever's turn it is with ``decide(actor, legal)`` -> (action, amount) until
    it answers None; returns (actor, legal) of the turn left waiting."""
    for _ in range(20):
        actor, legal = _legal(t, users)
        choice = decide(actor, legal)
        if choice is None:
            return actor, legal
        table_act(table_id=t.pk, player_id=actor.pk, action=choice[0], amount=choice[1],
                  key=key(), actor=actor_for(actor))  # fmt: skip
    raise AssertionError("the turn wanted never came")


def _to_the_flop(actor, legal):
    if legal["actions"] == ["check", "bet"]:
        return None
    return ("call", None) if "call" in legal["actions"] else ("check", None)


def test_the_action_bar_fits_360_and_390_px_phones_with_every_set_of_buttons(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    spots = []  # (name, table, users, the actor's expected buttons)
    preflop = table(name="NL preflop", action_seconds=600)
    users = [player(), player()]
    _seat_all(preflop, users, 20_000)
    spots.append(("fold-call-raise", preflop, users, ["fold", "call", "raise"]))

    flop = table(name="NL flop", action_seconds=600)
    users = [player(), player()]
    _seat_all(flop, users, 20_000)
    _play(flop, users, _to_the_flop)
    spots.append(("check-bet", flop, users, ["check", "bet"]))

    shove = table(name="NL all-in", action_seconds=600, max_buy_in=100_000)
    short, deep = player(), player()
    users = [short, deep]
    _seat_all(shove, [short], 2_000)
    _seat_all(shove, [deep], 50_000)

    def until_short_faces_a_shove(actor, legal):
        if actor == short:
            if legal["call_amount"] and legal["actions"] == ["fold", "call"]:
                return None
            return ("call", None) if "call" in legal["actions"] else ("check", None)
        return ("raise" if "raise" in legal["actions"] else "bet"), legal["max_to"]

    _play(shove, users, until_short_faces_a_shove)
    spots.append(("all-in-call", shove, users, ["fold", "call"]))

    limit = table(name="Limit preflop", variant="FT", action_seconds=600)
    users = [player(), player()]
    _seat_all(limit, users, 20_000)
    spots.append(("limit-fold-call-raise", limit, users, ["fold", "call", "raise"]))
    limit_flop = table(name="Limit flop", variant="FT", action_seconds=600)
    users = [player(), player()]
    _seat_all(limit_flop, users, 20_000)
    _play(limit_flop, users, _to_the_flop)
    spots.append(("limit-check-bet", limit_flop, users, ["check", "bet"]))

    with _session(monkeypatch) as session:
        for name, t, users, buttons in spots:
            actor, legal = _legal(t, users)
            page = session.open(actor, t.pk, PHONES[0])
            for action in buttons:
                expect(page.get_by_test_id(f"action-{action}")).to_be_visible()
            shown = page.locator(".action-buttons [data-action]:visible")
            assert [b.get_attribute("data-action") for b in shown.all()] == buttons, name
            for viewport in (*PHONES, DESKTOP):
                page.set_viewport_size(viewport)
                misfits = page.evaluate(_MISFITS)
                assert misfits == [], f"{name} at {viewport['width']} px: {misfits}"
                page.screenshot(
                    path=str(ARTIFACTS / f"action-bar-{name}-{viewport['width']}.png"),
                    full_page=True,
                )
            if name == "all-in-call":
                expect(page.get_by_test_id("action-call")).to_have_text(
                    f"Call {legal['call_amount']:,} (all-in)"
                )
            if name == "check-bet":
                # The label follows the amount as it is typed, before the field loses focus.
                field = page.get_by_test_id("amount-input")
                field.click()
                field.press("Control+a")
                field.press_sequentially(str(legal["min_to"] + 150))
                expect(page.get_by_test_id("action-bet")).to_have_text(
                    f"Bet {legal['min_to'] + 150:,}"
                )
                assert page.evaluate("document.activeElement.dataset.testid") == "amount-input"
            if name == "fold-call-raise":
                expect(page.get_by_test_id("action-call")).to_have_text(
                    f"Call {legal['call_amount']:,}"
                )


def test_leaving_during_a_live_hand_asks_first_and_the_session_reminder_offers_to_leave(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="Leave", action_seconds=600)
    users = [player(), player()]
    _seat_all(t, users, 10_000)
    late = player()
    _seat_all(t, [late], 10_000)  # not in the running hand
    actor, _ = _legal(t, users)
    hand_id = Table.objects.get(pk=t.pk).current_hand_id
    # This browser's clock runs ahead of the server's.
    ahead = datetime.now(UTC) + timedelta(seconds=SKEW_S)

    with _session(monkeypatch) as session:
        # Not in the hand: Leave leaves at once, with no question.
        page = session.open(late, t.pk)
        expect(page.get_by_test_id("leave")).to_be_visible()
        page.get_by_test_id("leave").click()
        expect(page.get_by_test_id("sit-form")).to_be_visible()
        expect(page.get_by_test_id("leave-confirm")).to_be_hidden()
        assert not Seat.objects.filter(table=t, player=late).exists()

        page = _log_in_and_open(
            session.browser, session.base, actor, t.pk, session.errors,
            prepare=lambda p: p.clock.install(time=ahead), viewport=PHONES[1],
        )  # fmt: skip
        session.pages.append(page)
        expect(page.get_by_test_id("action-fold")).to_be_visible()

        # In the hand: Leave asks, and "Stay" changes nothing.
        page.get_by_test_id("leave").click()
        ask = page.get_by_test_id("leave-confirm")
        expect(ask).to_be_visible()
        expect(ask).to_contain_text("Leave the table? Your hand will be folded")
        page.screenshot(path=str(ARTIFACTS / "leave-confirm-390.png"), full_page=True)
        page.get_by_test_id("leave-stay").click()
        expect(ask).to_be_hidden()
        seat = Seat.objects.get(table=t, player=actor)
        assert seat.state == Seat.State.ACTIVE
        assert Table.objects.get(pk=t.pk).current_hand_id == hand_id
        assert not Event.objects.filter(stream=f"hand-{hand_id}", type="PlayerFolded").exists()

        # An hour on: the reminder counts the server's hour and offers to leave, which
        # asks first too; confirmed, the hand is folded and the seat cashed out.
        # (Fast-forwarded to a second past the hour on the browser's clock: the timers
        # fire at the end of a jump.)
        page.wait_for_load_state("networkidle")
        hour = (seat.joined_at + timedelta(hours=1, seconds=SKEW_S + 1)).timestamp() * 1000
        page.clock.fast_forward(int(hour - page.evaluate("Date.now()")))
        reminder = page.get_by_test_id("session-reminder")
        expect(reminder).to_be_visible()
        expect(page.get_by_test_id("session-reminder-text")).to_contain_text(
            "Reality check: 1 h 0 min played"
        )
        page.screenshot(path=str(ARTIFACTS / "session-reminder-leave-390.png"), full_page=True)
        page.get_by_test_id("session-reminder-leave").click()
        expect(reminder).to_be_hidden()
        expect(ask).to_be_visible()
        page.get_by_test_id("leave-confirmed").click()
        expect(page.get_by_test_id("sit-form")).to_be_visible()
        assert not Seat.objects.filter(table=t, player=actor).exists()


def test_the_page_shows_the_next_deals_commitment_before_the_hand(table, player, monkeypatch):
    from playwright.sync_api import expect

    t = table(name="Fair", action_seconds=600)
    alice, bob = player(), player()
    _seat_all(t, [alice], 10_000)
    promised = table_view(table_id=t.pk, viewer_id=None)["next_deck_commitment"]
    with _session(monkeypatch) as session:
        page = session.open(alice, t.pk, PHONES[0])
        expect(page.get_by_test_id("commitment-hash")).to_have_text(promised)
        # Bob sits: the hand is dealt from the deck promised, and the page shows the
        # promise for the deal after it.
        _seat_all(t, [bob], 10_000)
        hand_id = Table.objects.get(pk=t.pk).current_hand_id
        expect(page.get_by_test_id("table-root")).to_have_attribute("data-hand", str(hand_id))
        started = Event.objects.get(stream=f"hand-{hand_id}", type="HandStarted")
        assert started.payload["deck_commitment"] == promised
        expect(page.get_by_test_id("log")).to_contain_text(
            f"Dealt from the deck committed as {promised}"
        )
        following = table_view(table_id=t.pk, viewer_id=None)["next_deck_commitment"]
        assert following != promised
        expect(page.get_by_test_id("commitment-hash")).to_have_text(following)
        page.screenshot(path=str(ARTIFACTS / "commitment-360.png"), full_page=True)


#: Records, in the page, each board it draws: its cards, how many results the felt shows,
#: the log's last line and each seat's stack at that moment.
_RECORD_STREETS = """() => {
  window.__streets = [];
  const look = () => {
    const board = document.querySelector("[data-testid=board]");
    const cards = board ? board.getAttribute("data-cards") || "" : "";
    const last = window.__streets[window.__streets.length - 1];
    if (last && last.cards === cards) return;
    const lines = document.querySelectorAll("[data-testid=log] li");
    const stacks = {};
    for (const seat of document.querySelectorAll("[data-testid^=seat-][data-stack]")) {
      if (!seat.getAttribute("data-player")) continue;  // an empty seat
      stacks[seat.getAttribute("data-testid").slice(5)] = Number(seat.getAttribute("data-stack"));
    }
    window.__streets.push({
      cards,
      results: document.querySelectorAll("[data-testid=result]").length,
      log: lines.length ? lines[lines.length - 1].textContent.trim() : "",
      stacks,
    });
  };
  new MutationObserver(look).observe(document.body, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  look();
}"""


def test_an_all_in_run_out_shows_main_and_side_pots_and_deals_a_street_at_a_time(
    table, player, monkeypatch, settings
):
    from playwright.sync_api import expect

    t = table(name="Run-out", action_seconds=600, max_buy_in=100_000)
    short, mid, deep = player(), player(), player(amount=200_000)
    users = [short, mid, deep]
    for user, stack in ((short, 2_000), (mid, 5_000), (deep, 10_000)):
        _seat_all(t, [user], stack)
    _fold_first_hand(t, users)  # the next hand deals all three in
    # The commands run here, in the test's process: its settings hold the pause from now.
    settings.POKER_HAND_PAUSE_MS, settings.POKER_RUNOUT_STREET_MS = 3_000, 1_500
    hand_id = Table.objects.get(pk=t.pk).current_hand_id
    env = {"POKER_HAND_PAUSE_MS": "3000", "POKER_RUNOUT_STREET_MS": "1500"}  # and the pages'

    with _session(monkeypatch, env) as session:
        page = session.open(deep, t.pk, PHONES[1])
        expect(page.get_by_test_id("table-root")).to_have_attribute("data-hand", str(hand_id))
        page.evaluate(_RECORD_STREETS)

        # Everyone all-in preflop: a main pot of three and a side pot of two.
        while Table.objects.get(pk=t.pk).current_hand_id == hand_id:
            actor, legal = _legal(t, users)
            shove = "raise" in legal["actions"]
            table_act(table_id=t.pk, player_id=actor.pk, action="raise" if shove else "call",
                      amount=legal["max_to"] if shove else None, key=key(),
                      actor=actor_for(actor))  # fmt: skip
        pots, won = {}, {}
        seat_of = Hand.objects.get(pk=hand_id).seat_numbers  # the events name engine indices
        for event in Event.objects.filter(stream=f"hand-{hand_id}", type="PotAwarded"):
            pot = event.payload.get("pot", 0)
            pots[pot] = pots.get(pot, 0) + sum(event.payload["amounts"])
            for index, amount in zip(
                event.payload["winners"], event.payload["amounts"], strict=True
            ):
                won[seat_of[index]] = won.get(seat_of[index], 0) + amount
        assert sorted(pots) == [0, 1], pots
        # The stacks after the hand, and as they stood all-in (what each wins not yet in).
        after = {
            row["seat"]: row["stack"] for row in table_view(table_id=t.pk, viewer_id=None)["seats"]
        }
        all_in = {seat: stack - won.get(seat, 0) for seat, stack in after.items()}
        assert all_in != after

        board = page.get_by_test_id("board")
        expect(page.get_by_test_id("pot-0")).to_have_text(f"Main {pots[0]:,}")
        expect(page.get_by_test_id("pot-1")).to_have_text(f"Side 1 {pots[1]:,}")
        expect(board).to_have_attribute("data-cards", re.compile(r"^(..){5}$"))
        expect(page.get_by_test_id("result").first).to_contain_text("wins")
        # What the page showed on the way, as it drew it (a busy machine may draw a street
        # between two of this test's looks): the flop, then the turn, then the river, each
        # said in the log, and nothing saying who won before the river.
        shown = [s for s in page.evaluate("window.__streets") if s["cards"]]
        assert [len(s["cards"]) // 2 for s in shown][:3] == [3, 4, 5], shown
        for street in shown[:2]:
            assert street["results"] == 0, shown
            # The stacks too: each seat shows what it went all in with, not what it wins.
            assert {int(k): v for k, v in street["stacks"].items()} == all_in, shown
            dealt = len(street["cards"]) // 2
            assert re.fullmatch(rf"Board:( \S+){{{dealt}}}", street["log"]), shown
        expect(page.get_by_test_id("last-hand")).to_be_visible()
        for seat, stack in after.items():
            expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute("data-stack", str(stack))
        page.screenshot(path=str(ARTIFACTS / "runout-result-390.png"), full_page=True)
