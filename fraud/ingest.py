"""Counting hands into the pair aggregates: one chunk at a time, each hand once.

A chunk is a list of hand ids. :func:`chunk_ingest` reads the finished hands among them
from the event store, computes their facts (``fraud.features``), and in ONE transaction
marks them ingested and adds their facts to the aggregates with additive upserts
(``INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x``, the same SQL on PostgreSQL
and SQLite). A hand already marked is skipped, so a chunk run twice, or two workers
racing on the same hands, count each hand once: the loser's insert of the marks fails,
its transaction rolls back whole, and its retry skips what the winner counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from typing import Any

from django.db import IntegrityError, connection, transaction

from fraud.features import HandFacts, PairFacts, aggregate, hand_facts
from fraud.models import IngestedHand, PairEvidence, PairStat
from handhistory.exports.records import hand_records

_PAIR_COLUMNS = tuple(f.name for f in fields(PairFacts))


@dataclass(frozen=True, slots=True)
class ChunkResult:
    hands: int
    skipped: int


def chunk_ingest(*, hand_ids: Sequence[int]) -> ChunkResult:
    """Counts the finished, not yet counted hands among ``hand_ids``; returns how many."""
    for attempt in range(3):
        try:
            return _ingest_once(hand_ids)
        except IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _ingest_once(hand_ids: Sequence[int]) -> ChunkResult:
    with transaction.atomic(durable=True):
        done = set(
            IngestedHand.objects.filter(hand_id__in=hand_ids).values_list("hand_id", flat=True)
        )
        records = hand_records([h for h in hand_ids if h not in done])
        facts = [
            hand_facts(
                hand_id=r.hand_id, player_ids=r.player_ids, usernames=r.usernames, events=r.events
            )
            for r in records
        ]
        _insert(IngestedHand._meta.db_table, ("hand_id",), [(f.hand_id,) for f in facts])
        _add(facts)
    return ChunkResult(hands=len(facts), skipped=len(hand_ids) - len(facts))


def _add(facts: Sequence[HandFacts]) -> None:
    pairs = aggregate(facts)
    _upsert(
        PairStat._meta.db_table, ("player_id", "partner_id"), _PAIR_COLUMNS,
        [(a, b, *astuple(p)) for (a, b), p in pairs.items()],
    )  # fmt: skip
    _insert(
        PairEvidence._meta.db_table,
        ("player_id", "partner_id", "kind", "hand_id", "weight", "reason"),
        [(e.player, e.partner, e.kind, e.hand_id, e.weight, e.reason)
         for hand in facts for e in hand.evidence],
    )  # fmt: skip


def _insert(table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
    """Inserts ``rows`` (plain tuples: no model instance per row, thousands per chunk)."""
    if not rows:
        return
    q = connection.ops.quote_name
    names = ", ".join(q(c) for c in columns)
    marks = ", ".join(["%s"] * len(columns))
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {q(table)} ({names}) VALUES ({marks})", rows)  # noqa: S608


def _upsert(
    table: str, keys: Sequence[str], counters: Sequence[str], rows: list[tuple[Any, ...]]
) -> None:
    """Adds ``rows`` (keys then counters) to ``table``'s counters, inserting new keys."""
    if not rows:
        return
    q = connection.ops.quote_name
    columns = ", ".join(q(c) for c in (*keys, *counters))
    marks = ", ".join(["%s"] * (len(keys) + len(counters)))
    sums = ", ".join(f"{q(c)} = {q(table)}.{q(c)} + excluded.{q(c)}" for c in counters)
    # Names are the model's own (quoted), values are parameters.
    sql = (
        f"INSERT INTO {q(table)} ({columns}) VALUES ({marks}) "  # noqa: S608
        f"ON CONFLICT ({', '.join(q(k) for k in keys)}) DO UPDATE SET {sums}"
    )
    # In key order, so two chunks adding to the same rows lock them in the same order.
    rows.sort(key=lambda row: row[: len(keys)])
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)
