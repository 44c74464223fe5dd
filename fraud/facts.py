"""Each finished hand's facts, computed once and stored: counting reads them, not events.

A hand's facts (``fraud.features.hand_facts``: per ordered pair counters and the
evidence) never change once the hand is over, so they are computed once, by the beat's
derivation of finished hands or by the first chunk that counts the hand, and kept in
``StoredFacts`` as one compact JSON row per hand::

    {"p": [player ids], "f": [[a, b, ev_net, ..., share_v] per pair with facts],
     "e": [[player, partner, kind, weight, reason] per evidence]}

(the pair counters in ``PAIR_COUNTERS`` order; ``hands`` is not stored: every ordered
pair of ``p`` shared the hand). Counting them (``fraud.ingest``) is then a read of these
rows and sums, about fifty times cheaper than reading and walking the events again.

:func:`store_hand_facts` and :func:`stored_hand_facts` are the two calls of a derivation
(compute for these records; which of these hands are done): storing is idempotent and
safe when two workers race (``ON CONFLICT``: the first row stays, unless it was computed
under another ``FACTS_VERSION``, which the new one replaces).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from django.db import connection, transaction

from fraud.features import FACTS_VERSION, PAIR_COUNTERS, HandFacts, facts_of_hands
from fraud.models import StoredFacts
from handhistory.exports.records import HandRecord

#: A hand's facts as stored and as counted: the decoded payload.
Payload = dict[str, Any]


def payload_of(facts: HandFacts) -> Payload:
    """The stored shape of one hand's facts (see the module's docstring)."""
    return {
        "p": list(facts.players),
        "f": [[a, b, *(getattr(pair, name) for name in PAIR_COUNTERS)]
              for (a, b), pair in facts.pairs.items()],
        "e": [[e.player, e.partner, e.kind, e.weight, e.reason] for e in facts.evidence],
    }  # fmt: skip


def facts_payloads(records: Sequence[HandRecord]) -> dict[int, Payload]:
    """The facts of ``records``, computed now (batched over the records), by hand id."""
    return {f.hand_id: payload_of(f) for f in facts_of_hands(records)}


def store_hand_facts(records: Sequence[HandRecord]) -> None:
    """Computes and stores the facts of ``records`` (finished hands). Idempotent: a hand
    whose facts are stored under this ``FACTS_VERSION`` keeps its row."""
    payloads_store(facts_payloads(records))


def payloads_store(payloads: dict[int, Payload]) -> None:
    """Stores computed payloads (the first row of a hand wins a race; a row of an older
    ``FACTS_VERSION`` is replaced)."""
    if not payloads:
        return
    table = connection.ops.quote_name(StoredFacts._meta.db_table)
    rows = [(hand_id, FACTS_VERSION, orjson.dumps(p).decode()) for hand_id, p in payloads.items()]
    # Ascending ids: two workers storing overlapping hands take the row locks in one order.
    rows.sort()
    with transaction.atomic():
        rows_insert(
            table,
            ("hand_id", "version", "payload"),
            rows,
            conflict="ON CONFLICT (hand_id) DO UPDATE SET version = excluded.version, "
            f"payload = excluded.payload WHERE {table}.version <> excluded.version",
        )


def stored_hand_facts(hand_ids: Sequence[int]) -> set[int]:
    """The hands among ``hand_ids`` whose facts are stored under this ``FACTS_VERSION``."""
    return set(
        StoredFacts.objects.filter(hand_id__in=hand_ids, version=FACTS_VERSION).values_list(
            "hand_id", flat=True
        )
    )


def stored_payloads(hand_ids: Sequence[int]) -> dict[int, Payload]:
    """The stored facts of ``hand_ids`` (this ``FACTS_VERSION`` only), decoded, by hand id.

    Raw rows and orjson: thousands of rows per chunk, where the ORM's per-row machinery
    would cost more than the counting."""
    if not hand_ids:
        return {}
    meta = StoredFacts._meta
    q = connection.ops.quote_name
    marks = ", ".join(["%s"] * len(hand_ids))
    sql = (
        f"SELECT {q('hand_id')}, {q('payload')} FROM {q(meta.db_table)} "  # noqa: S608
        f"WHERE {q('version')} = %s AND {q('hand_id')} IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [FACTS_VERSION, *hand_ids])
        return {hand_id: orjson.loads(text) for hand_id, text in cursor.fetchall()}


def rows_insert(
    table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]], *, conflict: str = ""
) -> None:
    """Inserts ``rows`` (plain tuples) into ``table`` (quoted) with multi-row ``VALUES``
    statements, as many rows per statement as the backend's parameter limit allows;
    ``conflict`` is an ``ON CONFLICT ...`` clause (PostgreSQL and SQLite share it)."""
    if not rows:
        return
    q = connection.ops.quote_name
    names = ", ".join(q(c) for c in columns)
    row_marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
    limit = connection.features.max_query_params or 65_535
    per = max(1, min(2_000, limit // len(columns)))
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per):
            part = rows[start : start + per]
            # Names are the models' own (quoted), values are parameters.
            sql = f"INSERT INTO {table} ({names}) VALUES {', '.join([row_marks] * len(part))} "  # noqa: S608
            cursor.execute(sql + conflict, [v for row in part for v in row])
