"""A running hand's engine state (poker.hands.hand_state): the state its table published in
this process when it is that hand's at the stream's current head, else a replay of the
events; never a stale state."""

from __future__ import annotations

import dataclasses

import pytest

from handhistory.models import Hand
from poker.commands.seating import table_sit
from poker.hands import hand_state
from poker.models import Table
from poker.published import publish, published
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db(transaction=True)


def _running_hand(table, player) -> Hand:
    t = table()
    for _ in range(2):
        u = player()
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    return Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)


def test_a_hand_state_is_the_one_its_table_published_at_the_streams_head(table, player):
    hand = _running_hand(table, player)
    basis = published(hand.table_id)
    assert basis is not None and basis.hand_id == hand.pk
    state, head = hand_state(hand)
    assert state is basis.state  # served, not replayed
    assert head == basis.head
    assert state == hand_state(hand, use_snapshot=False)[0]


def test_a_stream_written_since_it_was_published_is_replayed_not_served_stale(table, player):
    hand = _running_hand(table, player)
    basis = published(hand.table_id)
    seq, _ = basis.head
    publish(hand.table_id, dataclasses.replace(basis, head=(seq, "another head")))
    state, _ = hand_state(hand)
    assert state is not basis.state
    assert state == hand_state(hand, use_snapshot=False)[0]


def test_a_state_published_for_another_hand_is_not_served(table, player):
    hand = _running_hand(table, player)
    basis = published(hand.table_id)
    publish(hand.table_id, dataclasses.replace(basis, hand_id=hand.pk + 1000))
    state, _ = hand_state(hand)
    assert state is not basis.state
    assert state == hand_state(hand, use_snapshot=False)[0]
