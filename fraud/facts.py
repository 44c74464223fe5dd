"""Each finished hand's facts, computed once and stored: counting reads them, not events.

A hand's facts (``fraud.features.hand_facts``: per ordered pair counters and the
evidence) never change once the hand is over, so they are computed once, by the beat's
derivation of finished hands or by the first chunk that counts the hand, and kept in
``StoredFacts``, one row per hand, packed for counting (:class:`Packed`): the lineup as
int64 ids, the pairs' counters as a float64 matrix (one row per ordered pair with facts:
player, partner, then ``PAIR_COUNTERS``; ``hands`` is not stored: every ordered pair of
the lineup shared the hand), the evidence as JSON. Counting a chunk joins the rows' bytes
and reads them as one array: no per-value decoding (JSON payloads of the same facts cost
25 us a hand to parse, more than the rest of the counting).

:func:`store_hand_facts` and :func:`stored_hand_facts` are the two calls of a derivation
(compute for these records; which of these hands are done): storing is idempotent and
safe when two workers race (``ON CONFLICT``: the first row stays, unless it was computed
under another ``FACTS_VERSION``, which the new one replaces).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
import orjson
from django.db import connection, transaction
from django.db.models import Model

from fraud.features import FACTS_VERSION, PAIR_COUNTERS, HandFacts, facts_of_hands
from fraud.models import StoredFacts
from handhistory.exports.records import HandRecord

#: A pair row's width: player, partner, then the counters.
PAIR_WIDTH = 2 + len(PAIR_COUNTERS)
IDS = np.dtype("<i8")
COUNTERS = np.dtype("<f8")


_counters = attrgetter(*PAIR_COUNTERS)


@dataclass(frozen=True, slots=True)
class Packed:
    """One hand's facts as stored (see the module's docstring)."""

    lineup: bytes
    pairs: bytes
    evidence: str


def pack(facts: HandFacts) -> Packed:
    rows = [(a, b, *_counters(pair)) for (a, b), pair in facts.pairs.items()]
    evidence = [[e.player, e.partner, e.kind, e.weight, e.reason] for e in facts.evidence]
    return Packed(
        lineup=np.array(facts.players, dtype=IDS).tobytes(),
        pairs=np.array(rows, dtype=COUNTERS).reshape(len(rows), PAIR_WIDTH).tobytes(),
        evidence=orjson.dumps(evidence).decode() if evidence else "",
    )


def facts_packed(records: Sequence[HandRecord]) -> dict[int, Packed]:
    """The facts of ``records``, computed now, by hand id."""
    return {f.hand_id: pack(f) for f in facts_of_hands(records)}


def store_hand_facts(records: Sequence[HandRecord]) -> None:
    """Computes and stores the facts of ``records`` (finished hands). Idempotent: a hand
    whose facts are stored under this ``FACTS_VERSION`` keeps its row."""
    packed_store(facts_packed(records))


def packed_store(packed: dict[int, Packed]) -> None:
    """Stores computed facts (the first row of a hand wins a race; a row of an older
    ``FACTS_VERSION`` is replaced)."""
    if not packed:
        return
    # Ascending ids: two workers storing overlapping hands take the row locks in one order.
    ids = sorted(packed)
    rows = [packed[h] for h in ids]
    with transaction.atomic():
        rows_insert(
            StoredFacts,
            ("hand_id", "version", "lineup", "pairs", "evidence"),
            [
                ids,
                [FACTS_VERSION] * len(ids),
                [p.lineup for p in rows],
                [p.pairs for p in rows],
                [p.evidence for p in rows],
            ],
            conflict="ON CONFLICT (hand_id) DO UPDATE SET version = excluded.version, "
            "lineup = excluded.lineup, pairs = excluded.pairs, evidence = excluded.evidence "
            "WHERE {table}.version <> excluded.version",
        )


def stored_hand_facts(hand_ids: Sequence[int]) -> set[int]:
    """The hands among ``hand_ids`` whose facts are stored under this ``FACTS_VERSION``."""
    return set(
        StoredFacts.objects.filter(hand_id__in=hand_ids, version=FACTS_VERSION).values_list(
            "hand_id", flat=True
        )
    )


def stored_packed(hand_ids: Sequence[int]) -> dict[int, Packed]:
    """The stored facts of ``hand_ids`` (this ``FACTS_VERSION`` only), by hand id.

    Raw rows: thousands per chunk, where the ORM's per-row machinery would cost more
    than the counting."""
    if not hand_ids:
        return {}
    q = connection.ops.quote_name
    sql = (
        f"SELECT {q('hand_id')}, {q('lineup')}, {q('pairs')}, {q('evidence')} "  # noqa: S608
        f"FROM {q(StoredFacts._meta.db_table)} WHERE {q('version')} = %s AND "
        f"{q('hand_id')} {ids_in(len(hand_ids))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [FACTS_VERSION, *ids_params(hand_ids)])
        return {
            h: Packed(bytes(lineup), bytes(pairs), evidence)
            for h, lineup, pairs, evidence in cursor.fetchall()
        }


def ids_in(count: int) -> str:
    """``IN (...)`` for ``count`` ids, as :func:`ids_params` passes them: on PostgreSQL one
    array parameter (the driver parses no thousands of placeholders)."""
    if connection.vendor == "postgresql":
        return "= ANY(%s::bigint[])"
    return f"IN ({', '.join(['%s'] * count)})"


def ids_params(ids: Sequence[int]) -> list[Any]:
    if connection.vendor == "postgresql":
        return [_array(ids, "bigint")]
    return list(ids)


#: Column types sent as one array literal: ``repr`` of an int or a float reads back exactly
#: (the shortest string that rounds to the same double), and joining them is far cheaper
#: than the driver's element-by-element array dump.
_NUMERIC = ("integer", "bigint", "smallint", "double precision")


def _array(column: Sequence[Any], db_type: str) -> Any:
    if db_type in _NUMERIC:
        return "{" + ",".join(map(repr, column)) + "}"
    return list(column)


def rows_insert(
    model: type[Model],
    columns: Sequence[str],
    values: Sequence[Sequence[Any]],
    *,
    conflict: str = "",
) -> None:
    """Inserts rows given by column (``values[i]`` holds column ``columns[i]`` of every row)
    into ``model``'s table; ``conflict`` is an ``ON CONFLICT ...`` clause (PostgreSQL and
    SQLite share it), which may name the table as ``{table}``.

    PostgreSQL: one statement, each column one array parameter (``unnest``), so the driver
    never parses thousands of placeholders. SQLite: multi-row ``VALUES``, as many rows per
    statement as its parameter limit allows."""
    if not values or not values[0]:
        return
    q = connection.ops.quote_name
    table = q(model._meta.db_table)
    names = ", ".join(q(c) for c in columns)
    conflict = conflict.format(table=table)
    # Names are the models' own (quoted), values are parameters.
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            types = {f.column: f.db_type(connection) for f in model._meta.concrete_fields}
            arrays = ", ".join(f"%s::{types[c]}[]" for c in columns)
            sql = f"INSERT INTO {table} ({names}) SELECT * FROM unnest({arrays}) {conflict}"  # noqa: S608
            cursor.execute(
                sql, [_array(column, types[c]) for c, column in zip(columns, values, strict=True)]
            )
            return
        rows = list(zip(*values, strict=True))
        row_marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
        per = max(1, (connection.features.max_query_params or 999) // len(columns))
        for start in range(0, len(rows), per):
            part = rows[start : start + per]
            marks = ", ".join([row_marks] * len(part))
            sql = f"INSERT INTO {table} ({names}) VALUES {marks} {conflict}"  # noqa: S608
            cursor.execute(sql, [v for row in part for v in row])
