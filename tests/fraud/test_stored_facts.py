"""Stored hand facts (fraud.facts) and counting from them (fraud.ingest), on real stored
hands (PostgreSQL): the same figures as computing the facts from the events, each hand
counted once, missing facts computed on the way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import orjson
import pytest

from fraud.facts import store_hand_facts, stored_hand_facts
from fraud.features import FACTS_VERSION
from fraud.ingest import chunk_ingest
from fraud.models import IngestedHand, PairEvidence, StoredFacts
from handhistory.exports.records import hand_records
from handhistory.models import Hand
from tests.support.emptying import module_data
from tests.support.facts import counted, expected, play_room

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def room(django_db_setup: None, django_db_blocker: Any) -> Iterator[list[int]]:
    """The room, played once for the module and committed: every test here rolls back
    what it writes, so each finds the room as played. Emptied after the module."""
    with django_db_blocker.unblock(), module_data():
        yield play_room()


def test_counting_stored_facts_gives_exactly_the_figures_of_facts_computed_from_events(room):
    store_hand_facts(hand_records(room))
    assert stored_hand_facts(room) == set(room)
    assert chunk_ingest(hand_ids=room).hands == len(room)
    pairs, evidence = counted()
    expected_pairs, expected_evidence = expected(room)
    assert pairs == expected_pairs  # to the bit: same facts, summed in the same order
    assert evidence == expected_evidence
    assert any(e[2] == "chip_dumping" for e in evidence)
    assert any(p[1] != 0.0 for p in pairs.values())  # chips flowed


def test_a_chunk_computes_and_stores_the_facts_its_hands_lack(room):
    half = room[::2]
    store_hand_facts(hand_records(half))
    assert stored_hand_facts(room) == set(half)
    assert chunk_ingest(hand_ids=room).hands == len(room)
    assert stored_hand_facts(room) == set(room)
    assert counted() == expected(room)


def test_counting_twice_changes_nothing(room):
    chunk_ingest(hand_ids=room[:10])
    chunk_ingest(hand_ids=room)
    before = counted()
    assert chunk_ingest(hand_ids=room).hands == 0
    assert chunk_ingest(hand_ids=room[3:9]).hands == 0
    assert counted() == before
    assert IngestedHand.objects.count() == len(room)
    # Chunks add up to one chunk: the same hands counted in two parts give the same sums.
    assert before[0].keys() == expected(room)[0].keys()
    for key, row in before[0].items():
        assert row == pytest.approx(expected(room)[0][key])


def _rows(hands):
    return {row[0]: (row[1], bytes(row[2]), bytes(row[3]), row[4]) for row in
            StoredFacts.objects.filter(hand_id__in=hands).values_list(
                "hand_id", "version", "lineup", "pairs", "evidence")}  # fmt: skip


def test_storing_facts_again_keeps_the_row_and_replaces_one_of_another_version(room):
    hands = room[:5]
    store_hand_facts(hand_records(hands))
    rows = _rows(hands)
    store_hand_facts(hand_records(hands))
    assert _rows(hands) == rows
    StoredFacts.objects.filter(hand_id=hands[0]).update(
        version=FACTS_VERSION + 1, lineup=b"", pairs=b"", evidence=""
    )
    assert stored_hand_facts(hands) == set(hands[1:])
    store_hand_facts(hand_records(hands))
    assert _rows(hands) == rows


def test_facts_of_another_version_are_computed_again_when_counted(room):
    store_hand_facts(hand_records(room))
    StoredFacts.objects.filter(hand_id__in=room).update(
        version=FACTS_VERSION + 1, lineup=b"", pairs=b"", evidence=""
    )
    assert chunk_ingest(hand_ids=room).hands == len(room)
    assert counted() == expected(room)
    assert stored_hand_facts(room) == set(room)


def test_counting_reads_the_stored_row_not_the_events(room):
    store_hand_facts(hand_records(room))
    row = StoredFacts.objects.get(hand_id=room[0])
    a, b = np.frombuffer(bytes(row.lineup), dtype=np.int64)[:2].tolist()
    evidence = orjson.loads(row.evidence or "[]")
    row.evidence = orjson.dumps(
        [*evidence, [a, b, "soft_play", 0.5, "from the stored row"]]
    ).decode()
    row.save()
    chunk_ingest(hand_ids=room)
    assert PairEvidence.objects.filter(hand_id=room[0], reason="from the stored row").exists()


def test_a_running_hand_is_neither_stored_nor_counted(player, table):
    from poker.commands.seating import table_sit
    from tests.support.poker import actor_for, key

    users = [player(amount=100_000) for _ in range(2)]
    t = table(name="live")
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    running = Hand.objects.get(table=t, ended_at__isnull=True).pk
    assert chunk_ingest(hand_ids=[running]).hands == 0
    assert stored_hand_facts([running]) == set()
    assert not IngestedHand.objects.filter(hand_id=running).exists()


def test_the_handhistory_backlog_stores_every_finished_hands_facts(room):
    """The facts are a derived hand product: the beat's backlog (handhistory.derived) stores
    them with the export texts, so counting finds them ready."""
    from handhistory import derived

    assert "fraud_facts" in derived.products()
    StoredFacts.objects.all().delete()
    derived.derive_backlog()
    assert stored_hand_facts(room) == set(room)
