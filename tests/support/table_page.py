"""The table page's browser tests' shared pieces: phone sizes, a session (a real server
and a headless browser, ``tests.support.browser``) that opens players' table pages, and
seating helpers."""

import contextlib

from handhistory.models import Hand
from poker.commands.play import table_act
from poker.commands.seating import table_sit
from poker.models import Table
from poker.selectors import table_view
from tests.support.browser import DESKTOP, _log_in_and_open, browser_session
from tests.support.poker import actor_for, key
from tests.support.server import Server

PHONES = ({"width": 360, "height": 780}, {"width": 390, "height": 844})


class _Session:
    """A browser on a running server: ``open`` logs a user in on a table's page."""

    def __init__(self, browser, pages, server):
        self.browser, self.pages, self.errors = browser, pages, []
        self.base = f"http://127.0.0.1:{server.port}"

    def open(self, user, table_id, viewport=DESKTOP):
        page = _log_in_and_open(
            self.browser, self.base, user, table_id, self.errors, viewport=viewport
        )
        self.pages.append(page)
        # The page's buttons act over the WebSocket: wait until it is live, as a player
        # waits for "live" (on a loaded machine it can open after the buttons show).
        from playwright.sync_api import expect

        expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
        return page


@contextlib.contextmanager
def _session(monkeypatch, env=None):
    """A server (with ``env`` added) and a browser; no page may raise a script error."""
    server = Server()
    server.env.update(env or {})
    with browser_session(server, monkeypatch) as (browser, pages):
        session = _Session(browser, pages, server)
        yield session
    assert session.errors == [], session.errors


def _seat_all(t, users, buy_in):
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=buy_in, key=key(), actor=actor_for(u))


def _user_at(users, view, seat):
    pid = next(s["user_id"] for s in view["seats"] if s["seat"] == seat)
    return next(u for u in users if u.pk == pid)


def _fold_first_hand(t, users):
    """The first hand began with the first two players; its actor folds it, and the next
    one deals in everyone seated meanwhile (two players were playing: no big-blind wait)."""
    view = table_view(table_id=t.pk, viewer_id=None)
    actor = _user_at(users, view, view["hand"]["actor_seat"])
    table_act(table_id=t.pk, player_id=actor.pk, action="fold", key=key(), actor=actor_for(actor))
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    assert len(hand.player_ids) == len(users)
