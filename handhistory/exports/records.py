"""What the export formatters read: one frozen record per hand, loaded in bulk.

Three queries per chunk of hands (hands with their tables, their events, the players'
usernames): no formatter ever queries. :func:`iter_hand_records` walks any number of hands
through a server-side cursor, one chunk in memory at a time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from handhistory.models import Event as EventRow
from poker.engine.events import Event, HandStarted, event_from_dict
from poker.models import Hand
from poker.privacy import as_seen_by, seed_may_be_public, shown_players


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who reads the export: a player (their user id) or staff (``full``: every card)."""

    user_id: int | None = None
    full: bool = False


STAFF = Viewer(full=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandRecord:
    """A hand as stored (finished, unless built by :func:`hand_record`): engine events plus
    the table's static facts.

    Per-player tuples are in the engine's (PHH) order: left of the button first, the
    button last.
    """

    hand_id: int
    number: int
    table_id: int
    table_name: str
    max_seats: int
    currency: str
    seats: tuple[int, ...]
    player_ids: tuple[int, ...]
    usernames: tuple[str, ...]
    started_at: datetime
    events: tuple[Event, ...]

    @property
    def started(self) -> HandStarted:
        first = self.events[0]
        assert isinstance(first, HandStarted)
        return first

    @property
    def button_seat(self) -> int:
        return self.seats[-1]

    def player_index(self, viewer: Viewer) -> int | None:
        """The viewer's engine player index in this hand, or None if they did not play."""
        if viewer.user_id in self.player_ids:
            return self.player_ids.index(viewer.user_id)
        return None

    def seen_by(self, viewer: Viewer) -> tuple[Event, ...]:
        """The events as ``viewer`` may see them: the live table's rule (poker.privacy)."""
        n = len(self.seats)
        if viewer.full:
            return tuple(as_seen_by(e, shown=range(n), reveal_seed=True) for e in self.events)
        me = self.player_ids.index(viewer.user_id) if viewer.user_id in self.player_ids else None
        shown = shown_players(self.events)
        reveal = seed_may_be_public(self.events)
        return tuple(as_seen_by(e, viewer=me, shown=shown, reveal_seed=reveal) for e in self.events)


def hand_records(hand_ids: Iterable[int]) -> list[HandRecord]:
    """The finished hands among ``hand_ids``, in the given order (unknown ids skipped)."""
    ids = list(dict.fromkeys(hand_ids))
    hands = {
        h.pk: h
        for h in Hand.objects.select_related("table").filter(pk__in=ids, ended_at__isnull=False)
    }
    by_stream: dict[str, list[Event]] = defaultdict(list)
    rows = (
        EventRow.objects.filter(stream__in=[h.stream for h in hands.values()])
        .order_by("stream", "seq")
        .values_list("stream", "payload")
    )
    for stream, payload in rows.iterator(chunk_size=2000):
        by_stream[stream].append(event_from_dict(payload))
    user_ids = {u for h in hands.values() for u in h.player_ids}
    names = dict(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", "username"))
    return [_record(hands[i], by_stream[hands[i].stream], names) for i in ids if i in hands]


def hand_record(hand: Hand, events: Sequence[Event]) -> HandRecord:
    """One hand's record from its events already loaded, finished or still running (the
    JSON hand view shows a running hand too); one query for the usernames."""
    names = dict(
        get_user_model().objects.filter(pk__in=hand.player_ids).values_list("pk", "username")
    )
    return _record(hand, events, names)


#: Hands loaded per round trip when streaming: large enough to amortise the queries, small
#: enough that memory stays flat (a hand's events are a few kilobytes).
CHUNK_SIZE = 500


def iter_hand_records(
    hands: QuerySet[Hand], *, chunk_size: int = CHUNK_SIZE
) -> Iterator[HandRecord]:
    """The finished hands of ``hands`` in id order, loaded ``chunk_size`` at a time.

    The ids come through a server-side cursor (PostgreSQL) so neither the ids nor the
    records of the whole selection are ever in memory at once.
    """
    ids = hands.filter(ended_at__isnull=False).order_by("pk").values_list("pk", flat=True)
    cursor = ids.iterator(chunk_size=chunk_size * 4)
    while chunk := list(islice(cursor, chunk_size)):
        yield from hand_records(chunk)


def _record(hand: Hand, events: Sequence[Event], names: dict[int, str]) -> HandRecord:
    table = hand.table
    return HandRecord(
        hand_id=hand.pk,
        number=hand.number,
        table_id=table.pk,
        table_name=table.name,
        max_seats=table.max_seats,
        currency=table.currency,
        seats=tuple(hand.seat_numbers),
        player_ids=tuple(hand.player_ids),
        usernames=tuple(names[u] for u in hand.player_ids),
        started_at=hand.started_at,
        events=tuple(events),
    )
