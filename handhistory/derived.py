"""Derived hand products: what other apps compute once per finished hand, off the table path.

A product is anything stored per finished hand and computed from its events (the export
texts of ``handhistory.stored_texts``; the fraud app's features). Each app registers
its product once, at start-up (``AppConfig.ready``)::

    from handhistory import derived

    derived.register("export_texts", derive=derive_texts, stored=texts_stored)

* ``derive(records: Sequence[HandRecord]) -> None`` writes the product's rows for those
  finished hands. It must be idempotent (a hand already stored is not written twice) and
  safe when two runs derive the same hands at once (e.g. ``bulk_create(...,
  ignore_conflicts=True)`` under a unique constraint).
* ``stored(hand_ids: Sequence[int]) -> set[int]`` answers which of ``hand_ids`` already
  have the product.

:func:`derive_hands` loads the hands' records ONCE (``exports.records.hand_records``) and
runs every registered deriver on the hands it lacks; a reader that finds a hand without
its product calls it on the spot. :func:`derive_backlog` (the beat task
``handhistory.derive_backlog``, every ``HANDHISTORY_DERIVE_SECONDS``) derives the finished
hands that lack a product. Nothing runs in the hand-ending transaction and no message is
sent per hand: the table path does not pay for products.

The backlog cannot follow a hand-id watermark alone: ids are given when a hand starts and
hands end out of that order. :class:`~handhistory.models.DeriveMark` keeps the highest id
looked at and the ids that had not ended then (``pending``, at most about one per table);
each run looks at ``pending`` and at the ids above ``last_hand_id - ID_MARGIN`` (primary-key
range scans), derives those that have ended, and keeps those that have not as pending. The
margin covers a hand row whose inserting transaction commits after higher ids were seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice

from django.db.models import Q

from handhistory.exports.records import HandRecord, hand_records
from handhistory.models import DeriveMark, Hand

Derive = Callable[[Sequence[HandRecord]], None]
Stored = Callable[[Sequence[int]], set[int]]


@dataclass(frozen=True, slots=True)
class Product:
    name: str
    derive: Derive
    stored: Stored


_PRODUCTS: dict[str, Product] = {}

#: Hand ids below the mark looked at again by every backlog run (see the module's doc).
ID_MARGIN = 1_000
#: Hands loaded per round of the backlog.
CHUNK = 500
BACKLOG = "backlog"


def register(name: str, derive: Derive, stored: Stored) -> None:
    """Registers (or replaces) the product ``name``: see the module's documentation."""
    _PRODUCTS[name] = Product(name=name, derive=derive, stored=stored)


def products() -> tuple[str, ...]:
    """The names of the registered products."""
    return tuple(_PRODUCTS)


def derive_hands(hand_ids: Sequence[int]) -> int:
    """Derives every registered product the finished hands among ``hand_ids`` lack,
    loading their records once; returns how many hands were loaded (0: none lacked any).
    Hands not finished, or unknown, are skipped."""
    ids = list(dict.fromkeys(hand_ids))
    if not ids:
        return 0
    lacking: dict[str, set[int]] = {}
    for product in _PRODUCTS.values():
        missing = set(ids) - product.stored(ids)
        if missing:
            lacking[product.name] = missing
    if not lacking:
        return 0
    records = hand_records(sorted(set().union(*lacking.values())))
    for name, missing in lacking.items():
        todo = [r for r in records if r.hand_id in missing]
        if todo:
            _PRODUCTS[name].derive(todo)
    return len(records)


def derive_backlog(*, limit: int = 20_000, chunk: int = CHUNK) -> int:
    """Derives the finished hands that lack a product, looking at about ``limit`` hands at
    most (the next run goes on); returns how many hands were derived."""
    mark, _ = DeriveMark.objects.get_or_create(name=BACKLOG)
    floor = max(0, mark.last_hand_id - ID_MARGIN)
    earlier = sorted(set(mark.pending))
    rows = (
        Hand.objects.filter(Q(pk__gt=floor) | Q(pk__in=earlier))
        .order_by("pk")
        .values_list("pk", "ended_at")
    )
    cursor = rows.iterator(chunk_size=chunk)
    derived = seen = 0
    last = mark.last_hand_id
    pending: list[int] = []
    while seen < limit and (batch := list(islice(cursor, chunk))):
        seen += len(batch)
        derived += derive_hands([pk for pk, ended in batch if ended is not None])
        pending += [pk for pk, ended in batch if ended is None]
        at = batch[-1][0]
        last = max(last, at)
        # Saved once per chunk: a run stopped half-way resumes from here.
        DeriveMark.objects.filter(name=BACKLOG).update(
            last_hand_id=last, pending=pending + [pk for pk in earlier if pk > at]
        )
    return derived
