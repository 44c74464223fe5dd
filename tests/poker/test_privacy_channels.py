"""No player ever receives another player's hole cards unless that player showed them.

Three bots play 30 hands over REST, reading only their own ``state`` view; every response
body any of them receives (state, actions, public table view, hand list, hand details) is
recorded. Then the truth is read from the staff full view, and every recorded body is
searched for the unshown hole cards of the other players of the hand it is about.
Within one hand hole cards and board cards are disjoint, so any such card is a leak.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from handhistory.models import Hand
from poker.commands.staff import staff_actor, table_pause
from poker.engine.cards import format_card
from tests.support.bots import Recorder, bot_step, get, seat_three, top_up_broke
from tests.support.poker import hole_cards_by_user
from tests.support.tables_api import tables_url

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("tables"),
    pytest.mark.django_db(transaction=True),
]

CARDS = re.compile(r"^(?:[2-9TJQKA][cdhs])+$")
HANDS = 30


def cards_in(value: Any, key: str = "") -> set[str]:
    """Every card named anywhere in a JSON value: card strings such as "AsKd", and lists of
    card integers under card-bearing keys (events carry integers)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            found |= cards_in(v, k)
    elif isinstance(value, list):
        if key in ("cards", "fixed_deck", "board") and all(type(v) is int for v in value):
            found |= {format_card(v) for v in value if 0 <= v < 52}
        else:
            for v in value:
                found |= cards_in(v, key)
    elif isinstance(value, str) and CARDS.match(value):
        found |= {value[i : i + 2] for i in range(0, len(value), 2)}
    return found


def truth(staff: Any, hand_id: int) -> tuple[dict[int, set[str]], set[int]]:
    """(player id -> hole cards, ids of players who showed) from the staff full view."""
    return hole_cards_by_user(
        hand_id, get(staff, f"/api/v1/hands/{hand_id}/?full=1", None)["events"]
    )


def about(url: str, body: Any) -> list[tuple[int, Any]]:
    """(hand id, part of the body about that hand) pairs of one recorded response."""
    if url.endswith("/state/") or re.search(r"/tables/\d+/$", url):
        return [(body["hand"]["id"], body)] if body.get("hand") else []
    if url.endswith("/actions/"):
        return [(body["hand"], body)]
    if "/hands/?" in url or url.endswith("/hands/"):
        return [(item["hand"], item) for item in body["results"]]
    if re.search(r"/hands/\d+/$", url):
        return [(body["id"], body)]
    raise AssertionError(f"unclassified response from {url}")


def test_no_response_ever_reveals_unshown_hole_cards(
    auth_client, table, player, make_user, api_client
):
    rng = random.Random(7)
    t = table(min_buy_in=2_000, max_buy_in=4_000)
    clients = [auth_client(player()) for _ in range(3)]
    seat_three(clients, t.pk, buy_in=3_000)
    record: Recorder = []
    while Hand.objects.filter(table=t, ended_at__isnull=False).count() < HANDS:
        if not bot_step(clients, t.pk, rng, record):
            top_up_broke(clients, t.pk, t, record)
        if rng.random() < 0.05:  # spectators and players look at the public view too
            record.append((api_client, tables_url(t.pk), get(api_client, tables_url(t.pk), None)))
    # The hand under way plays to its end and no other starts: the truth of every hand
    # recorded is then readable (staff see every card of a hand once it has ended).
    table_pause(table_id=t.pk, actor=staff_actor(make_user(role="admin").pk))
    for _ in range(1_000):
        if not Hand.objects.filter(table=t, ended_at__isnull=True).exists():
            break
        bot_step(clients, t.pk, rng, record)
    else:
        raise AssertionError("the last hand did not end")
    for client in clients:
        get(client, "/api/v1/hands/?limit=100", record)
        for hand in Hand.objects.filter(table=t, ended_at__isnull=False):
            if client.user.pk in hand.player_ids:
                get(client, f"/api/v1/hands/{hand.pk}/", record)

    staff = auth_client(make_user(role="support"))
    truths: dict[int, tuple[dict[int, set[str]], set[int]]] = {}
    checked = showdowns = 0
    for client, url, body in record:
        viewer = getattr(client, "user", None)
        for hand_id, part in about(url, body):
            if hand_id not in truths:
                truths[hand_id] = truth(staff, hand_id)
            hole, shown = truths[hand_id]
            secret = set().union(
                *(
                    cards
                    for pid, cards in hole.items()
                    if pid not in shown and (viewer is None or pid != viewer.pk)
                )
            )
            leaked = cards_in(part) & secret
            assert not leaked, (url, hand_id, leaked, part)
            checked += 1
    for _hole, shown in truths.values():
        showdowns += bool(shown)
    # sanity: the detector does find every hole card in the staff's full view
    some_hand = next(iter(truths))
    full = get(staff, f"/api/v1/hands/{some_hand}/?full=1", None)
    assert set().union(*truths[some_hand][0].values()) <= cards_in(full)
    assert checked > 200 and len(truths) >= HANDS
    assert showdowns >= 3  # shown cards were part of what was checked
    # sanity: the detector does find a player's own cards in their own view
    own = next(
        (c, b)
        for c, u, b in record
        if u.endswith("/state/") and b.get("you") and b["you"]["hole_cards"]
    )
    assert CARDS.match(own[1]["you"]["hole_cards"]) and cards_in(own[1])
