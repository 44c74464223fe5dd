"""The web pages through Django's test client: lobby, login/logout, the table page, static
files, and the rule that player-provided text is never put in the page as HTML."""

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import SESSION_KEY

from poker.commands.seating import table_sit
from poker.models import Table
from tests.poker import conftest as poker_fixtures
from tests.support.poker import actor_for, key

# The poker tests' fixtures: ``player()`` makes a funded user, ``table()`` an open table.
player = poker_fixtures.player
table = poker_fixtures.table

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TABLE_JS = ROOT / "poker" / "static" / "poker" / "table.js"
PASSWORD = "pw-Str0ng-enough!"  # make_user's default


def _embedded(html, element_id):
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, f"no #{element_id} in the page"
    return json.loads(match.group(1))


def _sit(t, user, buy_in=10_000):
    return table_sit(
        table_id=t.pk, player_id=user.pk, buy_in=buy_in, key=key(), actor=actor_for(user)
    )


def test_lobby_lists_open_tables_with_stakes_seats_and_a_join_link(client, table, player):
    main = table(name="Main 50/100")
    other = table(name="Deep", small_blind=100, big_blind=200, min_buy_in=4_000, max_buy_in=40_000)
    _sit(main, player())

    resp = client.get("/")

    assert resp.status_code == 200
    html = resp.content.decode()
    assert "Main 50/100" in html and "Deep" in html
    assert "50/100" in html and "100/200" in html
    assert f'data-testid="lobby-seats-{main.pk}">1/6<' in html
    assert f'data-testid="lobby-seats-{other.pk}">0/6<' in html
    assert f'href="/tables/{main.pk}/"' in html


def test_lobby_hides_closed_tables_and_escapes_table_names(client, table):
    table(name="<script>alert(1)</script>")
    closed = table(name="Gone")
    Table.objects.filter(pk=closed.pk).update(status=Table.Status.CLOSED)

    html = client.get("/").content.decode()

    assert "Gone" not in html
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_login_with_the_right_password_starts_a_session_and_goes_to_the_lobby(client, make_user):
    user = make_user("alice")
    page = client.get("/login/")
    assert page.status_code == 200
    assert 'data-testid="login-form"' in page.content.decode()

    resp = client.post("/login/", {"username": "alice", "password": PASSWORD})

    assert resp.status_code == 302
    assert resp["Location"] == "/"
    assert client.session[SESSION_KEY] == str(user.pk)
    assert 'data-testid="nav-user">alice<' in client.get("/").content.decode()


def test_login_follows_next_to_the_table(client, make_user, table):
    make_user("bob")
    t = table()
    resp = client.post(
        "/login/", {"username": "bob", "password": PASSWORD, "next": f"/tables/{t.pk}/"}
    )
    assert resp.status_code == 302
    assert resp["Location"] == f"/tables/{t.pk}/"


def test_login_with_a_wrong_password_shows_an_error_and_no_session(client, make_user):
    make_user("carol")
    resp = client.post("/login/", {"username": "carol", "password": "wrong"})
    assert resp.status_code == 200
    assert 'data-testid="login-error"' in resp.content.decode()
    assert SESSION_KEY not in client.session


def test_logout_ends_the_session(client, make_user):
    client.force_login(make_user())
    resp = client.post("/logout/")
    assert resp.status_code == 302
    assert resp["Location"] == "/"
    assert SESSION_KEY not in client.session


def test_get_logout_asks_with_a_form_and_keeps_the_session(client, make_user):
    # A GET must not log out (any page could embed the address); it offers the POST form.
    client.force_login(make_user())
    resp = client.get("/logout/")
    assert resp.status_code == 200
    html = resp.content.decode()
    assert 'data-testid="logout-confirm"' in html and 'method="post"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert SESSION_KEY in client.session
    assert client.post("/logout/")["Location"] == "/"
    assert SESSION_KEY not in client.session
    # Signed out already: the page says so and offers the way back in.
    again = client.get("/logout/").content.decode()
    assert "You are logged out" in again and 'data-testid="logout-confirm"' not in again


def test_the_favicon_is_served_at_favicon_ico_and_linked_from_every_base_page(client, make_user):
    resp = client.get("/favicon.ico")
    assert resp.status_code == 200
    assert resp["Content-Type"] == "image/svg+xml"
    body = b"".join(resp.streaming_content) if resp.streaming else resp.content
    assert body.lstrip().startswith(b"<svg")
    linked = '<link rel="icon" href="/favicon.ico" type="image/svg+xml">'
    assert linked in client.get("/").content.decode()
    client.force_login(make_user(role="admin"))
    assert linked in client.get("/admin/").content.decode()
    assert linked in client.get("/staff/").content.decode()


def test_table_page_renders_for_a_logged_in_player_with_the_sit_form(client, make_user, table):
    user = make_user("dave")
    t = table(name="Friday game")
    client.force_login(user)

    resp = client.get(f"/tables/{t.pk}/")

    assert resp.status_code == 200
    html = resp.content.decode()
    assert "Friday game" in html
    for testid in ("table-root", "board", "pot", "hole-cards", "log", "chat", "sit-form",
                   "sit-submit", "leave", "action-fold", "action-check", "action-call",
                   "action-bet", "action-raise", "amount-range", "amount-input", "winner",
                   "chat-input"):  # fmt: skip
        assert f'data-testid="{testid}"' in html, testid
    assert 'name="csrfmiddlewaretoken"' in html or "csrftoken" in resp.cookies
    assert "/static/poker/table.js" in html
    config = _embedded(html, "table-config")
    assert config["user"] == "dave"
    assert config["ws_path"] == f"/ws/tables/{t.pk}/"
    view = _embedded(html, "initial-view")
    assert view["table"]["id"] == t.pk
    assert view["you"] is None  # not seated


def test_table_page_embeds_only_the_viewers_own_hole_cards(client, table, player):
    t = table()
    alice, bob = player(), player()
    _sit(t, alice)
    _sit(t, bob)  # two players: a hand starts
    client.force_login(alice)

    view = _embedded(client.get(f"/tables/{t.pk}/").content.decode(), "initial-view")

    assert view["hand"] is not None
    assert view["you"]["hole_cards"] and len(view["you"]["hole_cards"]) == 4
    assert all(seat["cards"] is None for seat in view["seats"])  # bob's cards are not in it


def test_spectators_may_watch_but_get_no_playing_controls(client, table):
    t = table()
    resp = client.get(f"/tables/{t.pk}/")
    assert resp.status_code == 200
    html = resp.content.decode()
    assert 'data-testid="login-to-play"' in html
    assert f"/login/?next=/tables/{t.pk}/" in html
    assert 'data-testid="sit-form"' not in html
    assert 'data-testid="chat-input"' not in html
    assert _embedded(html, "table-config")["user"] is None


def test_an_unknown_table_is_a_404(client):
    assert client.get("/tables/999999/").status_code == 404


def test_the_page_assets_are_served_by_us(client):
    for path in ("/static/poker/table.js", "/static/poker/table.css"):
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert b"".join(resp.streaming_content)


def test_the_table_script_never_builds_html_from_strings():
    source = TABLE_JS.read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in source, f"table.js uses {sink}"


def test_chat_and_log_lines_are_rendered_as_text():
    source = TABLE_JS.read_text()
    chat = source[source.index("function chat(") :]
    chat = chat[: chat.index("\n  }\n")]
    log = source[source.index("function log(") :]
    log = log[: log.index("\n  }\n")]
    # Both build nodes with el(tag, attrs, text), which sets textContent.
    assert "el(" in chat and "el(" in log
    helper = source[source.index("function el(") :]
    helper = helper[: helper.index("\n  }\n")]
    assert "node.textContent = String(text)" in helper
    banner = source[source.index("function showError(") :]
    assert "banner.textContent =" in banner[: banner.index("\n  }\n")]


def test_table_page_replays_recent_public_events_for_the_log_and_chat(client, table, player):
    from poker.commands.chat import table_chat

    t = table()
    alice, bob = player(username="alice"), player(username="bob")
    _sit(t, alice)
    _sit(t, bob)
    table_chat(table_id=t.pk, player_id=bob.pk, text="<b>hi</b>", key=key(), actor=actor_for(bob))

    html = client.get(f"/tables/{t.pk}/").content.decode()

    history = _embedded(html, "table-history")
    types = [
        g["event"]["type"] if g["kind"] == "table" else e["type"]
        for u in history
        for g in u["events"]
        for e in (g.get("events") or [None])
    ]
    assert types[:2] == ["PlayerSat", "PlayerSat"]
    assert "HandBegan" in types and "BlindPosted" in types and types[-1] == "ChatPosted"
    assert history[-1]["events"][0]["event"]["text"] == "<b>hi</b>"
    assert "<b>hi</b>" not in html  # json_script escapes it
    # Public events only: nobody's hole cards are in them.
    dealt = [
        e for u in history for g in u["events"] if g["kind"] == "hand" for e in g["events"]
        if e["type"] == "HoleCardsDealt"
    ]  # fmt: skip
    assert dealt and all(e["cards"] is None for e in dealt)
