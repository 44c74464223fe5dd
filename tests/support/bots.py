"""Bots playing over the table API: seat players, take random legal actions, buy back
the broke (recording every response when asked)."""

from __future__ import annotations

import random
from typing import Any

from handhistory.models import Hand
from poker.models import Table
from tests.support.tables_api import act, post, sit, tables_url

Recorder = list[tuple[Any, str, Any]]  # (client, url, response body)


def seat_three(clients: list[Any], table_id: int, buy_in: int) -> None:
    """Seats the players in order: the third sits while the first two play heads-up and
    is dealt in from the next hand (``_hand_lineup``'s heads-up rule)."""
    for seat, client in enumerate(clients, start=1):
        sit(client, table_id, buy_in=buy_in, seat=seat)


def get(client: Any, url: str, record: Recorder | None) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.json())
    body = response.json()
    if record is not None:
        record.append((client, url, body))
    return body


def choose(rng: random.Random, legal: dict[str, Any]) -> tuple[str, int | None]:
    """A random legal decision: mostly passive, sometimes aggressive, sometimes a fold."""
    actions = legal["actions"]
    roll = rng.random()
    sized = [a for a in actions if a in ("bet", "raise")]
    if sized and roll < 0.25:
        low, high = legal["min_to"], legal["max_to"]
        amount = low if rng.random() < 0.6 else rng.randint(low, high)
        return sized[0], amount
    if "fold" in actions and roll < 0.55:
        return "fold", None
    return ("check" if "check" in actions else "call"), None


def bot_step(
    clients: list[Any], table_id: int, rng: random.Random, record: Recorder | None = None
) -> bool:
    """The player to act takes one random legal action; False when nobody can act.

    Who is to act is read from the hand row (cheap); what they may do, from their own view.
    """
    hand = (
        Hand.objects.filter(table_id=table_id, ended_at__isnull=True)
        .values("player_ids", "actor_index")
        .first()
    )
    if hand is None or hand["actor_index"] is None:
        return False
    player_id = hand["player_ids"][hand["actor_index"]]
    actor = next(c for c in clients if c.user.pk == player_id)
    mine = get(actor, tables_url(table_id, "state"), record)
    legal = mine["you"]["legal_actions"]
    if legal is None:
        return False
    action, amount = choose(rng, legal)
    response = act(actor, table_id, action, amount, version=mine["version"])
    body = response.json()
    assert response.status_code == 200, (action, amount, legal, body)
    if record is not None:
        record.append((actor, tables_url(table_id, "actions"), body))
    return True


def top_up_broke(
    clients: list[Any], table_id: int, table: Table, record: Recorder | None = None
) -> None:
    """Players out of chips and not in the hand buy back to the maximum (and sit in again:
    the server sat out those who busted)."""
    view = get(clients[0], tables_url(table_id, "state"), record)
    for seat in view["seats"]:
        if seat["stack"] < table.big_blind and not seat["in_hand"]:
            client = next(c for c in clients if c.user.pk == seat["user_id"])
            response = post(
                client, tables_url(table_id, "top-up"), {"amount": table.max_buy_in - seat["stack"]}
            )
            assert response.status_code == 200, response.json()
            if seat["state"] == "sitting_out":
                response = post(client, tables_url(table_id, "sit-in"), {})
                assert response.status_code == 200, response.json()
