"""Appending to and reading from the event store, with the hash chain.

The chain: ``hash = sha256(prev_hash || canonical_json(content))`` where content is the
stream, seq, type, version, payload, recorded_at and who caused it. The first event of a
stream chains from ``GENESIS`` (64 zeros). Canonical JSON sorts keys and has no spaces so
the hash is reproducible by anyone holding the rows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection
from django.utils import timezone

from core.errors import Conflict
from handhistory.models import Event

GENESIS = "0" * 64


class StreamConflict(Conflict):
    """Someone else appended to the stream first: reload and retry."""

    default_code = "stream_conflict"


@dataclass(frozen=True, kw_only=True)
class Actor:
    """Who caused an event: a player (with the request's address and device) or the system."""

    kind: str = Event.ActorKind.SYSTEM
    user_id: int | None = None
    client_ip: str | None = None
    device_id: str = ""


SYSTEM = Actor()


@dataclass(frozen=True, kw_only=True)
class NewEvent:
    type: str
    version: int
    payload: dict[str, Any] = field(default_factory=dict)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_hash(
    *,
    prev_hash: str,
    stream: str,
    seq: int,
    type: str,
    version: int,
    payload: dict[str, Any],
    recorded_at: datetime,
    actor_kind: str,
    actor_id: int | None,
    client_ip: str | None,
    device_id: str,
) -> str:
    """The chained hash of one event (see the module docstring)."""
    content = _canonical(
        {
            "stream": stream,
            "seq": seq,
            "type": type,
            "version": version,
            "payload": payload,
            "recorded_at": recorded_at.isoformat(timespec="microseconds"),
            "actor": [actor_kind, actor_id, client_ip, device_id],
        }
    )
    return hashlib.sha256((prev_hash + content).encode()).hexdigest()


def _row_hash(row: Event) -> str:
    """The chained hash of an :class:`Event` row, from its content and its ``prev_hash``.

    What ``events_append`` stores in ``hash`` and what ``verify_chain`` recomputes.
    """
    return event_hash(
        prev_hash=row.prev_hash,
        stream=row.stream,
        seq=row.seq,
        type=row.type,
        version=row.version,
        payload=row.payload,
        recorded_at=row.recorded_at,
        actor_kind=row.actor_kind,
        actor_id=row.actor_id,
        client_ip=row.client_ip,
        device_id=row.device_id,
    )


def stream_head(stream: str) -> tuple[int, str]:
    """(last seq, last hash) of a stream; (0, GENESIS) when empty."""
    last = Event.objects.filter(stream=stream).order_by("-seq").values_list("seq", "hash").first()
    return last if last is not None else (0, GENESIS)


def chain(
    *,
    stream: str,
    events: Sequence[NewEvent],
    actor: Actor,
    head: tuple[int, str],
    recorded_at: datetime,
) -> list[dict[str, Any]]:
    """The rows of ``events`` appended after ``head`` (last seq, last hash), numbered and
    hash-chained, as :class:`Event` field values. Pure; the caller inserts them in its
    transaction."""
    seq, prev = head
    rows: list[dict[str, Any]] = []
    for new in events:
        seq += 1
        row = {
            "prev_hash": prev,
            "stream": stream,
            "seq": seq,
            "type": new.type,
            "version": new.version,
            "payload": new.payload,
            "recorded_at": recorded_at,
            "actor_kind": actor.kind,
            "actor_id": actor.user_id,
            "client_ip": actor.client_ip,
            "device_id": actor.device_id,
        }
        row["hash"] = prev = event_hash(**row)
        rows.append(row)
    return rows


def events_append(
    *,
    stream: str,
    events: Sequence[NewEvent],
    actor: Actor = SYSTEM,
    expected_seq: int | None = None,
) -> list[Event]:
    """Appends events to a stream inside the caller's transaction.

    ``expected_seq`` is the seq the caller last saw (optimistic concurrency); a mismatch,
    or a concurrent append winning the unique (stream, seq) race, raises StreamConflict.
    (The table service chains its rows itself with :func:`chain`, under the table's row
    lock, and inserts them with the rest of a command's writes.)
    """
    if not connection.in_atomic_block:
        raise RuntimeError("events_append must run inside the caller's transaction")
    if not events:
        return []
    head = stream_head(stream)
    if expected_seq is not None and expected_seq != head[0]:
        raise StreamConflict(
            f"stream {stream} is at {head[0]}, not {expected_seq}", stream=stream, seq=head[0]
        )
    fields = chain(stream=stream, events=events, actor=actor, head=head, recorded_at=timezone.now())
    rows = [Event(**f) for f in fields]
    try:
        # No savepoint: a conflict aborts the caller's whole transaction anyway, which is
        # what we want (the command failed), and it saves two round trips per append.
        Event.objects.bulk_create(rows)
    except IntegrityError:
        raise StreamConflict(
            f"stream {stream} was appended to concurrently", stream=stream
        ) from None
    return rows


def stream_events(stream: str, *, after_seq: int = 0) -> list[Event]:
    """The events of a stream in order, optionally only those after ``after_seq``."""
    return list(Event.objects.filter(stream=stream, seq__gt=after_seq).order_by("seq"))


def verify_chain(rows: Iterable[Event], *, after: tuple[int, str] = (0, GENESIS)) -> list[str]:
    """Problems found in one stream's rows (in seq order); an empty list means intact.

    ``after`` is the (seq, hash) of the row the first one must follow: the stream's start
    by default, or the last row an earlier (incremental) check verified.
    """
    problems: list[str] = []
    expected, prev = after[0] + 1, after[1]
    for row in rows:
        if row.seq != expected:
            problems.append(f"{row.stream}: seq {row.seq} where {expected} was expected")
        if row.prev_hash != prev:
            problems.append(f"{row.stream}#{row.seq}: prev_hash does not match the previous event")
        if _row_hash(row) != row.hash:
            problems.append(f"{row.stream}#{row.seq}: content does not match its hash")
        prev, expected = row.hash, row.seq + 1
    return problems
