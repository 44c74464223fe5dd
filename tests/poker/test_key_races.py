"""One Idempotency-Key racing itself on real PostgreSQL: a key that lost the race to a
DIFFERENT stored command is a 409 ``idempotency_key_reused``, never a 500 or a rules error,
and only the winner's effects are stored."""

from __future__ import annotations

from typing import Any

import pytest

from handhistory.models import Event
from ledger.models import Transfer
from poker.models import Seat, TableCommand
from tests.support.tables_api import post, tables_url
from tests.support.threads import clone, concurrently

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("tables")]


def _sat_events() -> int:
    # Each test starts from an empty database: every PlayerSat is this player's.
    return Event.objects.filter(type="PlayerSat").count()


def _one_winner(results: list[Any]) -> tuple[Any, list[Any]]:
    assert not [r for r in results if isinstance(r, Exception)], results
    assert all(r.status_code != 500 for r in results), [r.json() for r in results]
    winners = [r for r in results if r.status_code == 200]
    losers = [r for r in results if r.status_code != 200]
    assert len(winners) == 1, [r.json() for r in results]
    for loser in losers:
        assert loser.status_code == 409, loser.json()
        assert loser.json()["code"] == "idempotency_key_reused", loser.json()
    return winners[0], losers


def test_the_same_key_at_several_tables_at_once_is_a_409_for_all_but_one(
    auth_client, table, player
):
    tables = [table(name=f"T{i}") for i in range(4)]
    user = player()
    client = auth_client(user)
    transfers = Transfer.objects.count()
    results = concurrently(
        *[
            lambda t=t: post(clone(client), tables_url(t.pk, "sit"), {"buy_in": 5_000}, key="k")
            for t in tables
        ]
    )
    winner, _ = _one_winner(results)
    # Exactly the winner's effects: one seat, one stored command, one buy-in, one event.
    seats = list(Seat.objects.filter(player_id=user.pk))
    assert len(seats) == 1 and seats[0].table_id in {t.pk for t in tables}
    assert TableCommand.objects.filter(player_id=user.pk).count() == 1
    assert Transfer.objects.count() == transfers + 1
    assert Transfer.objects.order_by("-created_at").first().amount == 5_000
    assert _sat_events() == 1
    assert winner.json()["buy_in"] == 5_000


def test_the_same_key_with_different_buy_ins_at_one_table_at_once_is_a_409(
    auth_client, table, player
):
    t = table()
    user = player()
    client = auth_client(user)
    transfers = Transfer.objects.count()
    buy_ins = [3_000, 4_000, 5_000, 6_000]
    results = concurrently(
        *[
            lambda b=b: post(clone(client), tables_url(t.pk, "sit"), {"buy_in": b}, key="k2")
            for b in buy_ins
        ]
    )
    winner, _ = _one_winner(results)
    won = winner.json()["buy_in"]
    seat = Seat.objects.get(player_id=user.pk)
    assert seat.table_id == t.pk
    assert TableCommand.objects.filter(player_id=user.pk).count() == 1
    assert Transfer.objects.count() == transfers + 1
    assert Transfer.objects.order_by("-created_at").first().amount == won
    assert _sat_events() == 1
