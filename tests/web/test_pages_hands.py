"""The "My hands" page and the hand replayer page through Django's test client: filters,
pagination, privacy (someone else's hand is a 404, staff see every card with ?full=1)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from handhistory.exports.records import STAFF, Viewer, hand_records
from handhistory.models import PlayerHandResult
from handhistory.readable import readable_hand
from poker.engine.cards import format_cards
from poker.engine.events import HoleCardsDealt
from tests.poker import conftest as poker_fixtures
from tests.support.handhistory import TABLES, played_hands

pytestmark = pytest.mark.django_db

player = poker_fixtures.player
table = poker_fixtures.table


def _embedded(html: str, element_id: str) -> object:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, f"no #{element_id} in the page"
    return json.loads(match.group(1))


def _rows(html: str) -> list[int]:
    return [int(h) for h in re.findall(r'data-testid="hand-row-(\d+)"', html)]


def _row(html: str, hand: int) -> str:
    match = re.search(rf'<tr data-testid="hand-row-{hand}".*?</tr>', html, re.S)
    assert match, f"no row of hand {hand}"
    return match.group(0)


def _mine(user, **filters) -> list[int]:
    rows = PlayerHandResult.objects.filter(player=user, **filters)
    return list(rows.order_by("-ended_at", "-hand_id").values_list("hand_id", flat=True))


@pytest.fixture
def two_tables(table, player):
    """Two tables of three players each (other players at each)."""
    t1, users1, ids1 = played_hands(table, player, hands=4, seed=2, **TABLES["NT"])
    t2, users2, ids2 = played_hands(table, player, hands=3, seed=4, name="Other", **TABLES["FT"])
    return t1, users1, ids1, t2, users2, ids2


def test_my_hands_needs_a_login(client):
    response = client.get("/hands/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/hands/"
    assert client.get("/hands/1/")["Location"] == "/login/?next=/hands/1/"


def test_my_hands_lists_my_hands_newest_first_with_position_cards_and_signed_result(
    client, two_tables
):
    _, users, ids, *_ = two_tables
    me = users[0]
    client.force_login(me)
    html = client.get("/hands/").content.decode()
    assert _rows(html) == _mine(me)
    for record in hand_records(ids):
        i = record.player_index(Viewer(user_id=me.pk))
        if i is None:
            continue
        readable = readable_hand(record, Viewer(user_id=me.pk))
        me_row = readable["players"][i]
        hand = record.hand_id
        assert f'data-testid="hand-cards-{hand}" data-cards="{me_row["cards"]}"' in html
        assert f'data-testid="hand-position-{hand}">{me_row["position"]}<' in html
        net = me_row["net"]
        sign = f"+{net:,}" if net > 0 else f"{net:,}"  # play chips, thousands separated
        cls = "net-won" if net > 0 else "net-lost" if net < 0 else "net-even"
        assert re.search(
            rf'class="num net {cls}" data-testid="hand-net-{hand}">{re.escape(sign)}<', html
        )
        assert f'href="/hands/{hand}/"' in html
        # Nobody else's unshown cards are on the page.
        others = [
            format_cards(e.cards)
            for e in record.events
            if isinstance(e, HoleCardsDealt) and e.player != i
        ]
        shown = {p["cards"] for p in readable["players"] if p["showed"]}
        for cards in others:
            if cards not in shown:
                assert cards not in html
    assert 'data-testid="nav-hands"' in html
    assert 'data-testid="export-panel"' in html
    assert _embedded(html, "export-filters") == {
        "tables": [],
        "since": None,
        "until": None,
        "result": None,
    }


def test_the_list_filters_by_table_days_and_result(client, two_tables):
    t1, users1, *_ = two_tables
    me = users1[0]
    client.force_login(me)
    today = timezone.now().date()
    assert _mine(me, net__gt=0) and _mine(me, net__lt=0)  # both filters have something to show
    assert _rows(client.get(f"/hands/?table={t1.pk}").content.decode()) == _mine(me, table=t1)
    won = client.get("/hands/?result=won").content.decode()
    assert _rows(won) == _mine(me, net__gt=0)
    assert _rows(client.get("/hands/?result=lost").content.decode()) == _mine(me, net__lt=0)
    assert _rows(client.get(f"/hands/?since={today}&until={today}").content.decode()) == _mine(me)
    tomorrow = today + timedelta(days=1)
    empty = client.get(f"/hands/?since={tomorrow}").content.decode()
    assert _rows(empty) == [] and 'data-testid="hands-empty"' in empty
    assert _rows(client.get(f"/hands/?until={today - timedelta(days=1)}").content.decode()) == []
    page = client.get(f"/hands/?table={t1.pk}&since={today}").content.decode()
    assert _embedded(page, "export-filters") == {
        "tables": [t1.pk],
        "since": today.isoformat(),
        "until": None,
        "result": None,
    }
    # The export button exports what the list shows: the result filter goes to the job.
    assert _embedded(won, "export-filters")["result"] == "won"


def test_a_table_you_never_played_at_or_a_bad_day_is_refused_with_the_reason(client, two_tables):
    _, users1, _, t2, _, _ = two_tables
    client.force_login(users1[0])
    for query in (
        f"table={t2.pk}",
        "table=abc",
        "since=2026-13-01",
        "since=2026-11-02&until=2026-11-01",
    ):
        response = client.get(f"/hands/?{query}")
        assert response.status_code == 400, query
        html = response.content.decode()
        assert 'data-testid="filter-error"' in html
        assert _rows(html) == []


def test_the_list_is_paginated_and_keeps_the_filters(client, two_tables, monkeypatch):
    from poker.web import views

    t1, users1, *_ = two_tables
    me = users1[0]
    monkeypatch.setattr(views, "HANDS_PER_PAGE", 2)
    client.force_login(me)
    mine = _mine(me, table=t1)
    first = client.get(f"/hands/?table={t1.pk}").content.decode()
    assert _rows(first) == mine[:2]
    assert f'href="?table={t1.pk}&amp;page=2"' in first
    second = client.get(f"/hands/?table={t1.pk}&page=2").content.decode()
    assert _rows(second) == mine[2:4]


def test_the_replayer_embeds_the_hand_as_the_api_shows_it_to_you(client, two_tables):
    _, users, ids, *_ = two_tables
    me = users[1]
    client.force_login(me)
    record = next(r for r in hand_records(ids) if r.player_index(Viewer(user_id=me.pk)) is not None)
    response = client.get(f"/hands/{record.hand_id}/")
    assert response.status_code == 200
    html = response.content.decode()
    replay = _embedded(html, "hand-replay")
    assert {k: v for k, v in replay.items() if k not in ("hand", "viewer")} == readable_hand(
        record, Viewer(user_id=me.pk)
    )
    assert replay["viewer"] == me.username and replay["hand"]["full"] is False
    assert f'<section id="fairness" data-hand-id="{record.hand_id}"></section>' in html
    assert 'src="/static/poker/fairness.js"' in html and 'src="/static/poker/replayer.js"' in html
    for testid in ("step-first", "step-back", "step-forward", "step-last", "step-range", "board"):
        assert f'data-testid="{testid}"' in html
    assert " style=" not in html  # the Content-Security-Policy refuses inline styles


def test_someone_elses_hand_or_an_unknown_one_is_a_404_page(client, two_tables, make_user):
    _, _, ids, *_ = two_tables
    client.force_login(make_user())
    assert client.get(f"/hands/{ids[0]}/").status_code == 404
    assert client.get("/hands/999999999/").status_code == 404


def test_staff_see_every_card_of_any_hand_with_full_and_players_may_not_ask(
    client, two_tables, make_user
):
    _, users, ids, *_ = two_tables
    client.force_login(users[0])
    assert client.get(f"/hands/{ids[0]}/?full=1").status_code == 403
    client.force_login(make_user(role="support"))
    assert client.get(f"/hands/{ids[0]}/").status_code == 404  # not theirs, not asked for
    # Every card is the staff hand view's (it logs the view): ?full=1 leads there.
    response = client.get(f"/hands/{ids[0]}/?full=1", follow=True)
    assert response.redirect_chain == [(f"/staff/hands/{ids[0]}/", 302)]
    html = response.content.decode()
    replay = _embedded(html, "hand-replay")
    (record,) = hand_records([ids[0]])
    assert {k: v for k, v in replay.items() if k not in ("hand", "viewer")} == readable_hand(
        record, STAFF
    )
    assert all(p["cards"] for p in replay["players"])
    assert 'data-testid="full-view"' in html


def test_the_new_scripts_and_styles_are_served(client):
    for name in ("replayer.js", "exports.js", "hands.css"):
        response = client.get(f"/static/poker/{name}")
        assert response.status_code == 200, name


def test_the_table_page_links_to_my_hands_for_a_player(client, table, make_user):
    t = table()
    assert 'data-testid="table-my-hands"' not in client.get(f"/tables/{t.pk}/").content.decode()
    client.force_login(make_user())
    html = client.get(f"/tables/{t.pk}/").content.decode()
    assert 'data-testid="table-my-hands"' in html and 'href="/hands/"' in html
