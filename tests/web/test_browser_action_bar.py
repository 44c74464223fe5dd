"""The action bar on a phone: every set of buttons a turn can offer (check/bet, fold/call/
raise, a call that is all-in, fixed-limit) fits a 360 and a 390 px screen, each button
whole and its label uncut; the labels follow what is typed and say "all-in" when the call
takes the whole stack. Headless Chromium against a real server (``test_browser_page``'s
set-up); screenshots in ``test-artifacts/``.
"""

import pytest

from poker.commands.play import table_act
from poker.selectors import table_view
from tests.poker import conftest as poker_fixtures
from tests.support.browser import ARTIFACTS, DESKTOP
from tests.support.poker import actor_for, key
from tests.web.test_browser_page import PHONES, _seat_all, _session, _user_at

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

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
                    f"Call {legal['call_amount']} (all-in)"
                )
            if name == "check-bet":
                # The label follows the amount as it is typed, before the field loses focus.
                field = page.get_by_test_id("amount-input")
                field.click()
                field.press("Control+a")
                field.press_sequentially(str(legal["min_to"] + 150))
                expect(page.get_by_test_id("action-bet")).to_have_text(
                    f"Bet {legal['min_to'] + 150}"
                )
                assert page.evaluate("document.activeElement.dataset.testid") == "amount-input"
            if name == "fold-call-raise":
                expect(page.get_by_test_id("action-call")).to_have_text(
                    f"Call {legal['call_amount']}"
                )
