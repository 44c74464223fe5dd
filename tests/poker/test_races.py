"""Races over REST on real PostgreSQL: concurrent commands have exactly one effect and
the losers get clear, typed errors."""

from __future__ import annotations

from typing import Any

import pytest

from handhistory.models import Event, Hand
from ledger.models import Transfer
from poker.commands.staff import staff_actor, table_pause
from poker.models import Seat, Table, TableCommand
from tests.support.tables_api import act, actor_client, post, sit, state, tables_url
from tests.support.threads import clone, concurrently

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("tables")]

PLAYER_ACTIONS = ("PlayerFolded", "PlayerChecked", "PlayerCalled", "BetPlaced", "RaisedTo")


def _player_actions(hand_id: int) -> int:
    return Event.objects.filter(stream=f"hand-{hand_id}", type__in=PLAYER_ACTIONS).count()


@pytest.fixture
def three_handed(auth_client, table, player) -> tuple[list[Any], Table]:
    t = table()
    clients = [auth_client(player()) for _ in range(3)]
    for seat, c in enumerate(clients, start=1):
        sit(c, t.pk, seat=seat)
    return clients, t


def test_two_players_acting_at_once_on_the_same_version_one_wins(auth_client, table, player):
    t = table()
    clients = [auth_client(player()) for _ in range(2)]
    for c in clients:
        sit(c, t.pk)
    view = state(clients[0], t.pk)
    actor = actor_client(clients, view)
    other = next(c for c in clients if c is not actor)
    hand_id, version = view["hand"]["id"], view["version"]
    before = _player_actions(hand_id)
    results = concurrently(
        lambda: act(clone(actor), t.pk, "call", version=version),
        lambda: act(clone(other), t.pk, "call", version=version),
    )
    statuses = sorted(r.status_code for r in results)
    assert statuses.count(200) == 1, [r.json() for r in results]
    loser = next(r for r in results if r.status_code != 200).json()
    assert loser["code"] in ("stale_version", "not_your_turn"), loser
    assert results[0].status_code == 200  # only the player whose turn it was can win
    assert _player_actions(hand_id) == before + 1


def test_many_players_racing_without_versions_never_double_act(three_handed):
    clients, t = three_handed
    view = state(clients[0], t.pk)
    hand_id = view["hand"]["id"]
    before = _player_actions(hand_id)
    results = concurrently(
        *[lambda c=c: act(clone(c), t.pk, "fold") for c in clients for _ in range(2)]
    )
    ok = [r for r in results if r.status_code == 200]
    for r in results:
        if r.status_code != 200:
            assert r.status_code in (403, 409, 422) and r.json()["code"], r.json()
    folders = [
        payload["player"]
        for payload in Event.objects.filter(
            stream=f"hand-{hand_id}", type="PlayerFolded"
        ).values_list("payload", flat=True)
    ]
    # Six racing folds of three players: each player folded this hand at most once, and
    # every fold answered 200 is one of those events (none acknowledged and lost).
    assert len(folders) == len(set(folders)), folders
    assert len(folders) == len([r for r in ok if r.json()["hand"] == hand_id])
    assert _player_actions(hand_id) - before >= 1


def test_the_same_command_twice_at_once_has_one_effect(auth_client, table, player):
    t = table()
    a = auth_client(player())
    transfers = Transfer.objects.count()
    results = concurrently(
        lambda: post(clone(a), tables_url(t.pk, "sit"), {"buy_in": 5_000}, key="dup-sit"),
        lambda: post(clone(a), tables_url(t.pk, "sit"), {"buy_in": 5_000}, key="dup-sit"),
        lambda: post(clone(a), tables_url(t.pk, "sit"), {"buy_in": 5_000}, key="dup-sit"),
    )
    assert [r.status_code for r in results] == [200, 200, 200], [r.json() for r in results]
    bodies = [r.json() for r in results]
    assert sum(1 for b in bodies if not b.get("replayed")) == 1
    assert {(b["seat"], b["buy_in"], b["version"]) for b in bodies} == {(1, 5_000, 1)}
    assert Seat.objects.filter(table=t).count() == 1
    assert Transfer.objects.count() == transfers + 1
    assert TableCommand.objects.filter(key="dup-sit").count() == 1


def test_the_same_action_twice_at_once_acts_once(auth_client, table, player):
    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk)
    sit(b, t.pk)
    view = state(a, t.pk)
    actor = actor_client([a, b], view)
    hand_id = view["hand"]["id"]
    results = concurrently(
        *[
            lambda: post(
                clone(actor), tables_url(t.pk, "actions"), {"action": "call"}, key="dup-call"
            )
        ]
        * 4
    )
    assert [r.status_code for r in results] == [200] * 4, [r.json() for r in results]
    assert sum(1 for r in results if not r.json().get("replayed")) == 1
    assert Event.objects.filter(stream=f"hand-{hand_id}", type="PlayerCalled").count() == 1


def test_an_action_after_the_hand_ended_is_refused(auth_client, table, player):
    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk)
    sit(b, t.pk)
    table_pause(table_id=t.pk, actor=staff_actor(None))  # so no next hand starts
    view = state(a, t.pk)
    actor = actor_client([a, b], view)
    other = b if actor is a else a
    hand_id = view["hand"]["id"]
    # the player to act sends two different decisions at once: exactly one is applied
    results = concurrently(
        lambda: act(clone(actor), t.pk, "fold"),
        lambda: act(clone(actor), t.pk, "fold"),
    )
    assert sorted(r.status_code for r in results) == [200, 422], [r.json() for r in results]
    assert next(r for r in results if r.status_code == 422).json()["code"] == "not_in_hand"
    assert Hand.objects.get(pk=hand_id).ended_at is not None
    events, transfers = Event.objects.count(), Transfer.objects.count()
    for who in (actor, other):
        response = act(who, t.pk, "check")
        assert response.status_code == 422 and response.json()["code"] == "not_in_hand"
    stale = act(other, t.pk, "call", version=view["version"])
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    assert (Event.objects.count(), Transfer.objects.count()) == (events, transfers)


def test_an_action_racing_the_end_of_the_hand_on_a_live_table(auth_client, table, player):
    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk)
    sit(b, t.pk)
    view = state(a, t.pk)
    actor = actor_client([a, b], view)
    version = view["version"]
    results = concurrently(
        lambda: act(clone(actor), t.pk, "fold", version=version),
        lambda: act(clone(actor), t.pk, "call", version=version),
    )
    assert sorted(r.status_code for r in results) == [200, 409], [r.json() for r in results]
    assert next(r for r in results if r.status_code == 409).json()["code"] == "stale_version"
    acted = Event.objects.filter(stream=f"hand-{view['hand']['id']}", type__in=PLAYER_ACTIONS)
    assert acted.count() == 1
