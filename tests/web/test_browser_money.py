"""Money on the table page, in a real browser: a EUR table reads in euros ("€0.05/€0.10",
stacks of "€19.90"), its amount boxes take what a person types ("20", "0.30") and the API
gets integer minor units; the pages' formatter (money.js) gives the shared cases of the
server's one (wallet/amounts.py). Desktop and a 390 px phone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handhistory.models import Event
from ledger.models import Account
from poker.commands.seating import table_sit
from poker.models import Seat, Table
from poker.selectors import table_view
from tests.poker import conftest as poker_fixtures
from tests.support.browser import ARTIFACTS, _log_in_and_open, browser_session
from tests.support.poker import actor_for, fund, key
from tests.support.server import Server
from wallet.services import player_account

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

table = poker_fixtures.table
PHONE = {"width": 390, "height": 844}
CASES = json.loads((Path(__file__).parents[1] / "support" / "money_cases.json").read_text())

_CHECK_CASES = """cases => {
  const wrong = [];
  for (const c of cases.format) {
    const shown = Money.format(c.amount, cases.currencies[c.currency], c.options);
    if (shown !== c.shown) wrong.push(["format", c, shown]);
  }
  for (const c of cases.parse) {
    const read = Money.parse(c.typed, cases.currencies[c.currency]);
    const got = read.error !== undefined ? { error: read.error } : { minor: read.minor };
    const want = c.error !== undefined ? { error: c.error } : { minor: c.minor };
    if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(["parse", c, got]);
  }
  return wrong;
}"""


def test_a_euro_table_reads_and_takes_amounts_in_euros_on_desktop_and_phone(
    table, make_user, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="Euro table", currency="EUR", small_blind=5, big_blind=10, min_buy_in=1_000,
              max_buy_in=4_000, action_seconds=600)  # fmt: skip
    alice, bob = make_user(username="alice"), make_user(username="bob")
    for user in (alice, bob):
        fund(user, 10_000, currency="EUR")
    table_sit(table_id=t.pk, player_id=bob.pk, buy_in=1_990, seat=2, key=key(),
              actor=actor_for(bob))  # fmt: skip
    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors = []
    with browser_session(server, monkeypatch) as (browser, pages):
        desk = _log_in_and_open(browser, base, alice, t.pk, errors)
        phone = _log_in_and_open(browser, base, bob, t.pk, errors, viewport=PHONE)
        pages += [desk, phone]
        for page in pages:
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
            expect(page.get_by_test_id("table-stakes")).to_contain_text("€0.05/€0.10")
            expect(page.get_by_test_id("seat-2-stack")).to_have_text("€19.90")
        # The pages' formatter and parser agree with the server's on every shared case.
        assert desk.evaluate(_CHECK_CASES, CASES) == []

        # The buy-in box asks for euros and refuses a third decimal, moving nothing.
        expect(desk.get_by_test_id("sit-range")).to_have_text("€10.00\u2013€40.00")
        expect(desk.get_by_test_id("sit-buy-in")).to_have_value("40.00")
        cash = player_account(user_id=alice.pk, currency="EUR")
        desk.get_by_test_id("sit-buy-in").fill("19.905")
        desk.get_by_test_id("sit-submit").click()
        expect(desk.get_by_test_id("error")).to_contain_text("at most 2 decimals")
        assert not Seat.objects.filter(table=t, player=alice).exists()
        assert Account.objects.get(pk=cash.pk).balance == 10_000
        # The server's refusal (in minor units, for programs) is said in euros.
        desk.get_by_test_id("sit-buy-in").fill("5")
        desk.get_by_test_id("sit-submit").click()
        expect(desk.get_by_test_id("error")).to_have_attribute("data-code", "buy_in_out_of_range")
        expect(desk.get_by_test_id("error")).to_have_text(
            "The buy-in at this table is €10.00 to €40.00."
        )
        assert Account.objects.get(pk=cash.pk).balance == 10_000
        # "20" is 20.00 EUR: 2,000 minor units leave the wallet for the seat.
        desk.get_by_test_id("sit-buy-in").fill("20")
        desk.get_by_test_id("sit-submit").click()
        expect(desk.get_by_test_id("seat-1")).to_have_attribute("data-player", "alice")
        assert Account.objects.get(pk=cash.pk).balance == 8_000
        sat = Event.objects.get(stream=t.stream, type="PlayerSat", payload__user_id=alice.pk)
        assert sat.payload["buy_in"] == 2_000

        # The hand starts: whoever acts sizes a raise in euros.
        hand_id = Table.objects.get(pk=t.pk).current_hand_id
        assert hand_id is not None
        view = table_view(table_id=t.pk, viewer_id=None)
        actor_id = next(
            s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"]
        )
        legal = table_view(table_id=t.pk, viewer_id=actor_id)["you"]["legal_actions"]
        assert legal["min_to"] == 20
        page = desk if actor_id == alice.pk else phone
        actor_seat = 1 if actor_id == alice.pk else 2
        box = page.get_by_test_id("amount-input")
        expect(box).to_have_value("0.20")
        expect(page.get_by_test_id("action-raise")).to_have_text("Raise to €0.20")
        box.fill("0.255")
        box.press("Enter")
        expect(page.get_by_test_id("error")).to_contain_text("at most 2 decimals")
        box.fill("0.3")
        box.press("Enter")
        expect(page.get_by_test_id("action-raise")).to_have_text("Raise to €0.30")
        page.get_by_test_id("action-raise").click()
        bet = page.get_by_test_id(f"bet-{actor_seat}")
        expect(bet).to_have_attribute("data-amount", "30")
        expect(bet).to_have_text("€0.30")
        for page, name in ((desk, "desktop"), (phone, "phone-390")):
            page.screenshot(path=str(ARTIFACTS / f"table-eur-{name}.png"), full_page=True)
    assert errors == []
