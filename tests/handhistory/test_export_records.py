"""The export loader (handhistory/exports/records.py): what it reads back, on both paths."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.utils import timezone

from handhistory.exports.records import hand_records, iter_hand_records
from handhistory.models import Event as EventRow
from handhistory.models import Hand
from poker.engine.errors import InvalidEvent
from poker.engine.events import event_from_dict
from tests.support.handhistory import TABLES, played_hands

pytestmark = pytest.mark.django_db


def test_loaded_events_equal_the_event_stores_own_reading_of_every_payload(table, player):
    _, _, ids = played_hands(table, player, hands=12, seed=21, **TABLES["PO"])
    for record in hand_records(ids):
        payloads = (
            EventRow.objects.filter(stream=f"hand-{record.hand_id}")
            .order_by("seq")
            .values_list("payload", flat=True)
        )
        assert list(record.events) == [event_from_dict(p) for p in payloads]


def test_streaming_inside_a_transaction_gives_the_same_records_as_outside(table, player):
    t, _, ids = played_hands(table, player, hands=5, seed=8, **TABLES["NT"])
    outside = list(iter_hand_records(Hand.objects.filter(table=t), chunk_size=2))
    with transaction.atomic():  # a server-side cursor inside a transaction is not WITH HOLD
        inside = list(iter_hand_records(Hand.objects.filter(table=t), chunk_size=2))
    assert inside == outside == hand_records(sorted(ids))


def test_a_stored_event_of_an_unreadable_version_is_a_typed_error(table, player):
    _, _, ids = played_hands(table, player, hands=1, seed=3, **TABLES["NT"])
    stream = f"hand-{ids[0]}"
    last = EventRow.objects.filter(stream=stream).order_by("-seq").first()
    assert last is not None
    EventRow.objects.create(
        stream=stream, seq=last.seq + 1, type="PlayerFolded", version=99,
        payload={"type": "PlayerFolded", "version": 99, "player": 0},
        recorded_at=timezone.now(), actor_kind="system", prev_hash=last.hash, hash="f" * 64,
    )  # fmt: skip
    with pytest.raises(InvalidEvent) as refused:
        hand_records(ids)
    assert refused.value.code == "event_version_unsupported"
