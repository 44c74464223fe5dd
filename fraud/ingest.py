"""Counting hands into the pair aggregates: one chunk at a time, each hand once.

A chunk is a list of hand ids. :func:`chunk_ingest` reads the stored facts of the hands
among them not yet counted (``fraud.facts``: one compact row per hand); a finished hand
whose facts are not stored yet has them computed from its events and stored first, so
the counts never depend on the beat having derived them. Then, in ONE transaction, the
hands are marked ingested and their facts added to the aggregates with additive upserts
(``INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x``, the same SQL on PostgreSQL
and SQLite). A hand already marked is skipped, so a chunk run twice, or two workers
racing on the same hands, count each hand once: the loser's insert of the marks fails,
its transaction rolls back whole, and its retry skips what the winner counted.

The sums are taken in numpy over the whole chunk (``np.bincount`` adds in row order, the
order :func:`fraud.features.aggregate` adds in, so the figures are the same to the bit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from django.db import IntegrityError, connection, transaction

from fraud.facts import (
    COUNTERS,
    IDS,
    PAIR_WIDTH,
    Packed,
    facts_packed,
    ids_in,
    ids_params,
    packed_store,
    rows_insert,
    stored_packed,
)
from fraud.features import PAIR_COUNTERS, PairFacts
from fraud.models import IngestedHand, PairEvidence, PairStat
from handhistory.exports.records import hand_records

#: Counters stored as integers (the rest are floats).
_INTEGER = frozenset(name for name, kind in PairFacts.__annotations__.items() if kind == "int")


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
        _commit_without_waiting_for_the_disk()
        todo = list(dict.fromkeys(hand_ids))
        done = _ingested(todo)
        todo = [h for h in todo if h not in done]
        packed = stored_packed(todo)
        missing = facts_packed(hand_records([h for h in todo if h not in packed]))
        packed_store(missing)
        packed.update(missing)
        counted = [h for h in todo if h in packed]
        rows_insert(IngestedHand, ("hand_id",), [counted])
        _add([(h, packed[h]) for h in counted])
    return ChunkResult(hands=len(counted), skipped=len(hand_ids) - len(counted))


def _commit_without_waiting_for_the_disk() -> None:
    """PostgreSQL: this transaction's commit returns before its WAL reaches the disk (a
    tenth of a chunk's time on a busy machine). Safe for counts: a crash can only lose the
    last chunks whole (marks and sums are one transaction), as if they had never run, and
    they are counted again; and the run's success, committed later and durably, flushes
    every chunk's WAL before it (WAL is written in order)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _ingested(hand_ids: Sequence[int]) -> set[int]:
    q = connection.ops.quote_name
    sql = (
        f"SELECT {q('hand_id')} FROM {q(IngestedHand._meta.db_table)} "  # noqa: S608
        f"WHERE {q('hand_id')} {ids_in(len(hand_ids))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, ids_params(hand_ids))
        return {h for (h,) in cursor.fetchall()}


def pair_sums(packed: Sequence[Packed]) -> list[list[Any]]:
    """The facts of many hands summed per ordered pair, by column: player, partner, hands,
    then ``PAIR_COUNTERS``; one row per pair that shared a hand, in key order."""
    together = _together_keys([p.lineup for p in packed])
    table = np.frombuffer(b"".join(p.pairs for p in packed), dtype=COUNTERS)
    table = table.reshape(len(table) // PAIR_WIDTH, PAIR_WIDTH)
    fact_keys = (table[:, 0].astype(np.int64) << 32) | table[:, 1].astype(np.int64)
    keys, where = np.unique(np.concatenate([together, fact_keys]), return_inverse=True)
    n = len(keys)
    hands = np.bincount(where[: len(together)], minlength=n)
    of_facts = where[len(together) :]
    columns: list[list[Any]] = [(keys >> 32).tolist(), (keys & 0xFFFFFFFF).tolist(), hands.tolist()]
    for i, name in enumerate(PAIR_COUNTERS):
        sums = np.bincount(of_facts, weights=table[:, 2 + i], minlength=n)
        columns.append(sums.astype(np.int64).tolist() if name in _INTEGER else sums.tolist())
    return columns


def _together_keys(lineups: Sequence[bytes]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """``a << 32 | b`` for every ordered pair (a, b) of every lineup (user ids below 2**31),
    hand by hand."""
    by_size: dict[int, list[bytes]] = {}
    for lineup in lineups:
        by_size.setdefault(len(lineup), []).append(lineup)
    parts = []
    for size, group in by_size.items():
        n = size // IDS.itemsize
        players = np.frombuffer(b"".join(group), dtype=IDS).reshape(len(group), n)
        a, b = np.nonzero(~np.eye(n, dtype=bool))
        parts.append(((players[:, a] << 32) | players[:, b]).ravel())
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def _add(packed: Sequence[tuple[int, Packed]]) -> None:
    if not packed:
        return
    q = connection.ops.quote_name
    sums = ", ".join(
        f"{q(c)} = {{table}}.{q(c)} + excluded.{q(c)}" for c in ("hands", *PAIR_COUNTERS)
    )
    # In key order (pair_sums' order), so two chunks adding to the same rows lock them in
    # the same order and never deadlock.
    rows_insert(
        PairStat,
        ("player_id", "partner_id", "hands", *PAIR_COUNTERS),
        pair_sums([p for _, p in packed]),
        conflict=f"ON CONFLICT ({q('player_id')}, {q('partner_id')}) DO UPDATE SET {sums}",
    )
    evidence = [
        (player, partner, kind, hand_id, weight, reason)
        for hand_id, p in packed
        if p.evidence
        for player, partner, kind, weight, reason in orjson.loads(p.evidence)
    ]
    rows_insert(
        PairEvidence,
        ("player_id", "partner_id", "kind", "hand_id", "weight", "reason"),
        [list(column) for column in zip(*evidence, strict=True)],
    )
