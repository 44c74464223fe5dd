"""What the export formatters read: one frozen record per hand, loaded in bulk.

Three queries per chunk of hands (hands with their tables, their events, the players'
usernames), and a fourth when the chunk holds tournament hands (their tournaments'
facts, ``exports.tournaments``): no formatter ever queries. :func:`iter_hand_records`
walks any number of hands through a server-side cursor, at most two chunks in memory (the
next one loads while the current one is formatted).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from itertools import groupby, islice
from operator import itemgetter
from typing import Any

import orjson
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import QuerySet

from handhistory.exports.tournaments import TournamentFacts, TournamentHand, tournament_facts
from handhistory.models import Event as EventRow
from handhistory.models import Hand
from poker.engine.events import EVENT_TYPES, Event, HandStarted, event_from_dict
from poker.engine.privacy import as_seen_by, seed_may_be_public, shown_players


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
    button last. ``tournament`` is set for a hand at a tournament table (its stacks and
    amounts are tournament chips), None for a cash hand.
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
    tournament: TournamentHand | None = None

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
        """The events as ``viewer`` may see them: the live table's rule (poker.engine.privacy)."""
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
    hands: dict[int, tuple[Any, ...]] = {
        row[0]: row
        for row in Hand.objects.filter(pk__in=ids, ended_at__isnull=False).values_list(
            "pk",
            "number",
            "table_id",
            "table__name",
            "table__max_seats",
            "table__currency",
            "seat_numbers",
            "player_ids",
            "started_at",
            "table__tournament_id",
            "table__tournament_table",
        )
    }
    events = _events([f"hand-{pk}" for pk in hands])  # each hand's stream (Hand.stream)
    user_ids = {u for row in hands.values() for u in row[_PLAYERS]}
    names = dict(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", "username"))
    facts = tournament_facts({row[_TOURNAMENT] for row in hands.values()} - {None})
    return [_record(hands[i], events.get(f"hand-{i}", ()), names, facts) for i in ids if i in hands]


#: Where a hand row of :func:`hand_records` holds the player ids and the tournament id.
_PLAYERS = 7
_TOURNAMENT = 9


def _events(streams: Sequence[str]) -> dict[str, tuple[Event, ...]]:
    """The events of ``streams``, decoded, by stream.

    Raw rows and orjson rather than the ORM's JSONField: the loader handles every event of
    every exported hand, and per-row model machinery cost more than formatting the hand.
    """
    if not streams:
        return {}
    meta = EventRow._meta
    column = {f.name: f.column for f in meta.concrete_fields}
    stream, seq, payload = column["stream"], column["seq"], column["payload"]
    marks = ", ".join(["%s"] * len(streams))
    sql = (
        f"SELECT {stream}, {payload} FROM {meta.db_table} "  # noqa: S608 - model names only
        f"WHERE {stream} IN ({marks}) ORDER BY {stream}, {seq}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, list(streams))
        rows = cursor.fetchall()
    decode = _EventDecoder()
    return {
        key: tuple(decode(text) for _, text in group)
        for key, group in groupby(rows, key=itemgetter(0))
    }


class _EventDecoder:
    """Reads stored payloads back into events, as :func:`event_from_dict` does, faster.

    Events are frozen, so equal payloads may share one event: most of a hand's events
    (folds, checks, blinds, common bets) recur in thousands of hands, and reusing them
    skips the dataclass construction. Anything unusual (an unknown type, another schema
    version, a missing field) goes through :func:`event_from_dict`, which raises the
    typed error.
    """

    def __init__(self) -> None:
        self.interned: dict[bytes | str, Event] = {}

    def __call__(self, text: bytes | str) -> Event:
        event = self.interned.get(text)
        if event is not None:
            return event
        data = orjson.loads(text)
        cls = EVENT_TYPES.get(data.get("type", ""))
        if cls is None or data.get("version", cls.version) != cls.version:
            return event_from_dict(data)
        plan = _FIELDS.get(cls)
        if plan is None:
            return event_from_dict(data)
        names, flat_tuples = plan
        try:
            values = {name: data[name] for name in names}
        except KeyError:
            return event_from_dict(data)
        for name in flat_tuples:
            if type(values[name]) is list:
                values[name] = tuple(values[name])
        event = cls(**values)
        if len(self.interned) < _INTERNED_MAX and len(text) < _INTERN_BELOW:
            self.interned[text] = event
        return event


#: Shared events per chunk at most, and only short payloads (the recurring ones): memory
#: stays bounded whatever the hands.
_INTERNED_MAX = 20_000
_INTERN_BELOW = 120
_SCALARS = ("int", "str", "bool")
_FLAT_TUPLES = ("tuple[int, ...]", "tuple[str, ...]")
#: Each event type's fields, and those that are flat tuples (stored as JSON lists), for
#: the types whose fields are all of those kinds (any other goes through event_from_dict).
_FIELDS = {
    cls: (
        tuple(f.name for f in fields(cls)),
        tuple(f.name for f in fields(cls) if f.type in _FLAT_TUPLES),
    )
    for cls in EVENT_TYPES.values()
    if all(f.type in _SCALARS + _FLAT_TUPLES for f in fields(cls))
}


def hand_record(hand: Hand, events: Sequence[Event]) -> HandRecord:
    """One hand's record from its events already loaded, finished or still running (the
    JSON hand view shows a running hand too); one query for the usernames."""
    names = dict(
        get_user_model().objects.filter(pk__in=hand.player_ids).values_list("pk", "username")
    )
    table = hand.table
    row = (
        hand.pk,
        hand.number,
        table.pk,
        table.name,
        table.max_seats,
        table.currency,
        hand.seat_numbers,
        hand.player_ids,
        hand.started_at,
        table.tournament_id,
        table.tournament_table,
    )
    facts = tournament_facts(() if table.tournament_id is None else (table.tournament_id,))
    return _record(row, tuple(events), names, facts)


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


def _record(
    hand: tuple[Any, ...],
    events: tuple[Event, ...],
    names: dict[int, str],
    facts: dict[int, TournamentFacts],
) -> HandRecord:
    pk, number, table_id, table_name, max_seats, currency, seats, players, started_at = hand[:9]
    tournament_id, table_number = hand[9:]
    tournament = None
    if tournament_id is not None:
        # The level is the one whose big blind the hand was dealt (exports.tournaments).
        started = events[0]
        assert isinstance(started, HandStarted)
        of = facts[tournament_id]
        level = of.level_of(max(started.blinds_or_straddles))
        tournament = TournamentHand(facts=of, table_number=table_number, level=level)
    return HandRecord(
        hand_id=pk,
        number=number,
        table_id=table_id,
        table_name=table_name,
        max_seats=max_seats,
        currency=currency,
        seats=tuple(seats),
        player_ids=tuple(players),
        usernames=tuple(names[u] for u in players),
        started_at=started_at,
        events=events,
        tournament=tournament,
    )
