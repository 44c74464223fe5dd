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
from django.db import IntegrityError, connection, transaction

from fraud.facts import Payload, facts_payloads, payloads_store, rows_insert, stored_payloads
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
        done = set(
            IngestedHand.objects.filter(hand_id__in=hand_ids).values_list("hand_id", flat=True)
        )
        todo = [h for h in dict.fromkeys(hand_ids) if h not in done]
        payloads = stored_payloads(todo)
        missing = facts_payloads(hand_records([h for h in todo if h not in payloads]))
        payloads_store(missing)
        payloads.update(missing)
        counted = [h for h in todo if h in payloads]
        rows_insert(
            connection.ops.quote_name(IngestedHand._meta.db_table),
            ("hand_id",),
            [(h,) for h in counted],
        )
        _add([(h, payloads[h]) for h in counted])
    return ChunkResult(hands=len(counted), skipped=len(hand_ids) - len(counted))


def pair_sums(payloads: Sequence[Payload]) -> list[tuple[Any, ...]]:
    """The facts of many hands summed per ordered pair: ``(player, partner, hands,
    *PAIR_COUNTERS)`` rows in key order, one per pair that shared a hand."""
    together = _together_keys([p["p"] for p in payloads])
    facts = [row for p in payloads for row in p["f"]]
    table = np.array(facts, dtype=np.float64).reshape(len(facts), 2 + len(PAIR_COUNTERS))
    fact_keys = (table[:, 0].astype(np.int64) << 32) | table[:, 1].astype(np.int64)
    keys, where = np.unique(np.concatenate([together, fact_keys]), return_inverse=True)
    n = len(keys)
    hands = np.bincount(where[: len(together)], minlength=n)
    of_facts = where[len(together) :]
    columns: list[list[Any]] = [(keys >> 32).tolist(), (keys & 0xFFFFFFFF).tolist(),
                                hands.tolist()]  # fmt: skip
    for i, name in enumerate(PAIR_COUNTERS):
        sums = np.bincount(of_facts, weights=table[:, 2 + i], minlength=n)
        columns.append(sums.astype(np.int64).tolist() if name in _INTEGER else sums.tolist())
    return list(zip(*columns, strict=True))


def _together_keys(lineups: Sequence[Sequence[int]]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """``a << 32 | b`` for every ordered pair (a, b) of every lineup, hand by hand."""
    parts = []
    by_size: dict[int, list[Sequence[int]]] = {}
    for lineup in lineups:
        by_size.setdefault(len(lineup), []).append(lineup)
    for size, group in by_size.items():
        players = np.array(group, dtype=np.int64)
        a, b = np.nonzero(~np.eye(size, dtype=bool))
        parts.append(((players[:, a] << 32) | players[:, b]).ravel())
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def _add(payloads: Sequence[tuple[int, Payload]]) -> None:
    if not payloads:
        return
    q = connection.ops.quote_name
    table = q(PairStat._meta.db_table)
    sums = ", ".join(f"{q(c)} = {table}.{q(c)} + excluded.{q(c)}"
                     for c in ("hands", *PAIR_COUNTERS))  # fmt: skip
    # In key order (pair_sums' order), so two chunks adding to the same rows lock them in
    # the same order and never deadlock.
    rows_insert(
        table,
        ("player_id", "partner_id", "hands", *PAIR_COUNTERS),
        pair_sums([p for _, p in payloads]),
        conflict=f"ON CONFLICT ({q('player_id')}, {q('partner_id')}) DO UPDATE SET {sums}",
    )
    rows_insert(
        q(PairEvidence._meta.db_table),
        ("player_id", "partner_id", "kind", "hand_id", "weight", "reason"),
        [(player, partner, kind, hand_id, weight, reason)
         for hand_id, p in payloads for player, partner, kind, weight, reason in p["e"]],
    )  # fmt: skip
