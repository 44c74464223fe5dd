"""Stored hand facts counted by workers racing on the same hands: each hand once."""

from __future__ import annotations

import pytest

from fraud.facts import store_hand_facts
from fraud.ingest import chunk_ingest
from fraud.models import IngestedHand
from handhistory.exports.records import hand_records
from tests.support.facts import counted, expected, play_room
from tests.support.threads import race


@pytest.fixture
def room() -> list[int]:
    return play_room()


# Workers race on connections of their own.
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_on_stored_facts_count_each_hand_once(room):
    store_hand_facts(hand_records(room[::3]))

    def work():
        store_hand_facts(hand_records(room[1::3]))
        chunk_ingest(hand_ids=room)

    assert not race(work)
    assert IngestedHand.objects.count() == len(room)
    assert counted() == expected(room)
