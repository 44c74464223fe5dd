"""Two real browsers play one hand against a real server, by clicking.

Headless Debian Chromium (``/usr/bin/chromium``, installed by ``make test`` through
``scripts/ensure_browser.sh``) is driven by Playwright. The server is ``manage.py serve`` as a
subprocess on the test database, so the pages, the REST calls and the WebSocket are the real
ones. The truth the pages are checked against comes from the event store and the ledger.
"""

import json
import re
import time

import pytest

from handhistory.models import Hand
from ledger.models import Account
from poker.engine.cards import format_cards
from poker.models import Seat, Table
from poker.selectors import hand_detail, table_view
from tests.poker import conftest as poker_fixtures
from tests.support import browser as harness
from tests.support.browser import (
    ARTIFACTS,
    BUY_IN,
    _log_in_and_open,
    _truth,
    _version,
    browser_session,
)
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# The poker tests' fixtures: ``player()`` makes a funded user, ``table()`` an open table.
player = poker_fixtures.player
table = poker_fixtures.table


def test_two_players_play_a_hand_to_showdown_by_clicking(table, player, monkeypatch):
    from playwright.sync_api import expect

    t = table(name="Browser table", action_seconds=300)
    alice, bob = player(username="alice"), player(username="bob")
    users = [alice, bob]
    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors = []
    with browser_session(server, monkeypatch) as (browser, pages):
        pages += [_log_in_and_open(browser, base, u, t.pk, errors) for u in users]
        for page in pages:
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")

        # Alice picks seat 1 by clicking it; Bob takes any free seat.
        alice_page, bob_page = pages
        alice_page.get_by_test_id("seat-1").click()
        expect(alice_page.get_by_test_id("sit-seat")).to_have_value("1")
        alice_page.get_by_test_id("sit-buy-in").fill(str(BUY_IN))
        alice_page.get_by_test_id("sit-submit").click()
        expect(alice_page.get_by_test_id("seat-1")).to_have_attribute("data-player", "alice")
        # Bob's page learns of Alice over the socket.
        expect(bob_page.get_by_test_id("seat-1-name")).to_have_text("alice")
        bob_page.get_by_test_id("sit-buy-in").fill(str(BUY_IN))
        bob_page.get_by_test_id("sit-submit").click()
        for page in pages:
            expect(page.get_by_test_id("sit-form")).to_be_hidden()
            expect(page.get_by_test_id("leave")).to_be_visible()

        # Two players: the first hand starts. Each page shows its own cards only.
        seat_of = {s.player_id: s.number for s in Seat.objects.filter(table=t).order_by("number")}
        assert seat_of == {alice.pk: 1, bob.pk: 2}
        hand_id = Table.objects.get(pk=t.pk).current_hand_id
        assert hand_id is not None
        holes, _, _ = _truth(hand_id)
        for user, page in zip(users, pages, strict=True):
            expect(page.get_by_test_id("table-root")).to_have_attribute("data-hand", str(hand_id))
            hole = page.get_by_test_id("hole-cards")
            expect(hole).to_have_attribute("data-cards", holes[user.pk])
            other = next(u for u in users if u is not user)
            expect(page.get_by_test_id(f"seat-{seat_of[other.pk]}-cards")).not_to_have_attribute(
                "data-cards", re.compile(".+")
            )
            assert holes[other.pk] not in page.content()
            # Cards are text with suit symbols, e.g. "A♠".
            symbols = hole.inner_text()
            assert re.search(r"(10|[2-9JQKA])[♣♦♥♠]", symbols), symbols

        # Chat is text: markup a player types is shown literally, never parsed.
        said = '<img src=x onerror="window.pwned=1"> <b>gl</b> & have fun'
        alice_page.get_by_test_id("chat-input").fill(said)
        alice_page.get_by_test_id("chat-send").click()
        for page in pages:
            line = page.get_by_test_id("chat").locator(".chat-line").last
            expect(line.locator(".chat-name")).to_have_text("alice")
            expect(line.locator(".chat-text")).to_have_text(said)
            assert page.get_by_test_id("chat").locator("img, b").count() == 0
            assert page.evaluate("window.pwned") is None

        # The first player to act may raise: the slider spans exactly the legal range.
        view = table_view(table_id=t.pk, viewer_id=None)
        actor_id = next(
            s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"]
        )
        legal = table_view(table_id=t.pk, viewer_id=actor_id)["you"]["legal_actions"]
        actor_page = pages[[u.pk for u in users].index(actor_id)]
        expect(actor_page.get_by_test_id("action-raise")).to_be_visible()
        field = actor_page.get_by_test_id("amount-range")
        expect(field).to_have_attribute("min", str(legal["min_to"]))
        expect(field).to_have_attribute("max", str(legal["max_to"]))
        actor_page.get_by_test_id("amount-input").fill(str(legal["max_to"] + 999))
        actor_page.get_by_test_id("amount-input").press("Enter")
        expect(actor_page.get_by_test_id("amount-input")).to_have_value(
            str(legal["max_to"])
        )  # clamped to the legal range
        expect(actor_page.get_by_test_id("action-raise")).to_contain_text("all-in")
        idle = pages[1 - pages.index(actor_page)]
        expect(idle.get_by_test_id("actions")).to_be_hidden()

        # Play it out: whoever has the buttons checks, else calls.
        deadline = time.monotonic() + 120
        actions = 0
        while Hand.objects.get(pk=hand_id).ended_at is None:
            assert time.monotonic() < deadline, "the hand did not finish"
            acted = False
            for page in pages:
                for name in ("check", "call"):
                    button = page.get_by_test_id(f"action-{name}")
                    if button.is_visible():
                        expect(page.get_by_test_id("clock")).to_contain_text("Your turn")
                        before = _version(page)
                        button.click()
                        actions += 1
                        expect(page.get_by_test_id("table-root")).not_to_have_attribute(
                            "data-version", str(before)
                        )
                        acted = True
                        break
                if acted:
                    break
            if not acted:
                time.sleep(0.1)
        assert actions >= 7  # call + check preflop, then two checks on each street

        # The hand is over (and the next one has begun). Compare with the truth.
        holes, shown_cards, winners = _truth(hand_id)
        detail = hand_detail(hand_id=hand_id, viewer_id=None, full=True)
        board = "".join(
            format_cards(e["cards"]) for e in detail["events"] if e["type"] == "BoardDealt"
        )
        stacks = {
            s.number: Account.objects.get(pk=s.stake_account_id).balance
            for s in Seat.objects.filter(table=t)
        }
        assert sum(stacks.values()) == 2 * BUY_IN
        names = {alice.pk: "alice", bob.pk: "bob"}
        for page in pages:
            panel = page.get_by_test_id("last-hand")
            expect(panel).to_have_attribute("data-hand", str(hand_id))
            lines = page.get_by_test_id("winner").locator(".winner-line")
            expect(lines).to_have_count(len(winners))
            for i, (pid, amount) in enumerate(winners):
                expect(lines.nth(i)).to_have_attribute("data-player", names[pid])
                expect(lines.nth(i)).to_contain_text(f"{names[pid]} wins {amount:,}")
            for seat, stack in stacks.items():
                expect(page.get_by_test_id(f"final-stack-{seat}")).to_have_attribute(
                    "data-stack", str(stack)
                )
            # Cards shown at showdown are on every page; mucked ones on none.
            assert shown_cards, "a showdown shows at least one hand"
            for pid in holes:
                shown = page.get_by_test_id("shown").locator(
                    f'.shown-line[data-seat="{seat_of[pid]}"]'
                )
                if pid in shown_cards:
                    assert shown_cards[pid] == holes[pid]
                    expect(shown).to_have_attribute("data-cards", shown_cards[pid])
                else:
                    expect(shown).to_have_count(0)
            log = page.get_by_test_id("log")
            expect(log).to_contain_text("Board: " + " ".join(re.findall("..", board)))
            expect(log).to_contain_text("wins")

        # The next hand: the seats' chips (stack + blind posted) are the stacks above,
        # and each page shows its own new cards.
        next_hand = Table.objects.get(pk=t.pk).current_hand_id
        assert next_hand is not None and next_hand != hand_id
        next_holes, _, _ = _truth(next_hand)
        for user, page in zip(users, pages, strict=True):
            expect(page.get_by_test_id("table-root")).to_have_attribute("data-hand", str(next_hand))
            expect(page.get_by_test_id("hole-cards")).to_have_attribute(
                "data-cards", next_holes[user.pk]
            )
            for seat, stack in stacks.items():
                shown = page.get_by_test_id(f"seat-{seat}-stack").inner_text()
                shown_stack = int(shown.replace(",", ""))  # whole chips, thousands separated
                bet = page.get_by_test_id(f"bet-{seat}")
                posted = int(bet.get_attribute("data-amount")) if bet.count() else 0
                assert shown_stack + posted == stack

        for user, page in zip(users, pages, strict=True):
            page.screenshot(
                path=str(ARTIFACTS / f"browser-table-{user.username}.png"), full_page=True
            )

        # Leaving during a hand: the seat is marked and cashes out when it ends.
        alice_page.get_by_test_id("leave").click()
        alice_page.get_by_test_id("leave-confirmed").click()  # in a hand: asked first
        expect(alice_page.get_by_test_id("leave")).to_be_hidden()
        expect(bob_page.get_by_test_id("seat-1-state")).to_have_text("leaving")
        expect(bob_page.get_by_test_id("log")).to_contain_text("alice will leave after this hand")
    assert errors == [], errors


def test_a_page_fills_a_lost_update_and_reconnects_after_a_server_restart(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="Flaky network", action_seconds=300)
    alice, bob = player(username="alice"), player(username="bob")
    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors = []
    # Alice's socket goes through a proxy in the page that can lose one server frame.
    sent, dropped, drop = [], [], {"update": False}

    def lossy(page):
        def handler(ws):
            upstream = ws.connect_to_server()

            def from_server(message):
                frame = json.loads(message)
                if frame.get("type") == "update" and drop["update"]:
                    drop["update"] = False
                    dropped.append(frame["version"])
                    return
                ws.send(message)

            def from_page(message):
                sent.append(json.loads(message))
                upstream.send(message)

            upstream.on_message(from_server)
            ws.on_message(from_page)

        page.route_web_socket(re.compile(r".*/ws/tables/\d+/"), handler)

    with browser_session(server, monkeypatch) as (browser, pages):
        alice_page = _log_in_and_open(browser, base, alice, t.pk, errors, prepare=lossy)
        bob_page = _log_in_and_open(browser, base, bob, t.pk, errors)
        pages += [alice_page, bob_page]
        for page in pages:
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
        alice_page.get_by_test_id("sit-submit").click()
        expect(bob_page.get_by_test_id("seat-1-name")).to_have_text("alice")

        # Bob sits (a hand starts): Alice's copy of that update is lost.
        drop["update"] = True
        bob_page.get_by_test_id("sit-submit").click()
        expect(bob_page.get_by_test_id("sit-form")).to_be_hidden()
        deadline = time.monotonic() + 10
        while not dropped and time.monotonic() < deadline:
            alice_page.wait_for_timeout(100)
        assert dropped, "no update was dropped"
        # The next update shows Alice the gap: she asks for what she missed.
        bob_page.get_by_test_id("chat-input").fill("hello")
        bob_page.get_by_test_id("chat-send").click()
        expect(alice_page.get_by_test_id("chat")).to_contain_text("hello")
        # The page's resync frame passes through the route's thread: wait for it to land
        # (on a loaded machine the chat can show before the frame is recorded).
        deadline = time.monotonic() + 10
        while not any(f.get("type") == "resync" for f in sent) and time.monotonic() < deadline:
            alice_page.wait_for_timeout(100)
        resyncs = [f for f in sent if f.get("type") == "resync"]
        assert resyncs and resyncs[0]["from_version"] == dropped[0] - 1
        version = Table.objects.get(pk=t.pk).version
        expect(alice_page.get_by_test_id("table-root")).to_have_attribute(
            "data-version", str(version)
        )
        expect(alice_page.get_by_test_id("seat-2-name")).to_have_text("bob")
        expect(alice_page.get_by_test_id("log")).to_contain_text("bob sits in seat 2")
        hand_id = Table.objects.get(pk=t.pk).current_hand_id
        holes, _, _ = _truth(hand_id)
        expect(alice_page.get_by_test_id("hole-cards")).to_have_attribute(
            "data-cards", holes[alice.pk]
        )

        # The server dies and comes back: both pages reconnect by themselves and
        # carry on from the snapshot.
        server.kill()
        for page in pages:
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "closed")
        server.start()
        for page in pages:
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
            expect(page.get_by_test_id("table-root")).to_have_attribute(
                "data-version", str(Table.objects.get(pk=t.pk).version)
            )
        actor_seat = table_view(table_id=t.pk, viewer_id=None)["hand"]["actor_seat"]
        actor_page = pages[actor_seat - 1]
        before = Table.objects.get(pk=t.pk).version
        actor_page.get_by_test_id("action-call").click()
        for page in pages:
            expect(page.get_by_test_id("table-root")).not_to_have_attribute(
                "data-version", str(before)
            )
            expect(page.get_by_test_id("log")).to_contain_text(
                f"{'alice' if actor_seat == 1 else 'bob'} calls 50"
            )
        # Errors from the server are shown to the player (here: chatting too fast).
        banner = bob_page.get_by_test_id("error")
        # The limit counts fixed windows (CHAT_RATE: 5 per 10 s), so a burst that a
        # window's end splits needs 2 x 5 + 1 lines to be sure of crossing it.
        for i in range(11):
            bob_page.get_by_test_id("chat-input").fill(f"spam {i}")
            bob_page.get_by_test_id("chat-send").click()
            if banner.is_visible():
                break
        expect(banner).to_be_visible()
        expect(banner).to_have_attribute("data-code", "chat_rate_limited")
        expect(alice_page.get_by_test_id("error")).to_be_hidden()

        for user, page in zip([alice, bob], pages, strict=True):
            page.screenshot(
                path=str(ARTIFACTS / f"browser-reconnect-{user.username}.png"),
                full_page=True,
            )
    assert errors == [], errors


def test_a_missing_browser_fails_the_run_instead_of_skipping(monkeypatch):
    monkeypatch.setattr(harness, "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(pytest.fail.Exception, match=r"ensure_browser\.sh"):
        harness._require_browser()
