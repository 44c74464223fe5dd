"""Export texts stored per finished hand and format, and the exports that read them.

The ``export_texts`` product of ``handhistory.derived``: :func:`derive` stores, for each
finished hand and each format of ``FORMATS``, the template of ``exports.templates`` (one
``HandText`` row); :func:`stored` says which hands have all of them. Exports read the
templates instead of the events: :func:`iter_texts` streams a selection's texts for one
viewer through a server-side cursor, deriving on the spot (through the registry, so the
rows are stored) the hands that lack them.

It sits beside ``handhistory.exports``, not in it: the registry loads hands through
``exports.records``, so the exports import nothing that imports the registry.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

import orjson
from django.db.models import Count, FilteredRelation, Q, QuerySet

from handhistory import derived
from handhistory.exports import FORMATS, Format
from handhistory.exports.records import CHUNK_SIZE, HandRecord, Viewer
from handhistory.exports.templates import build, render
from handhistory.models import Hand, HandText

PRODUCT = "export_texts"


def derive(records: Sequence[HandRecord]) -> None:
    """Stores every format's template of ``records`` (a row already stored is kept)."""
    rows = [
        HandText(
            hand_id=record.hand_id,
            format=name,
            template=orjson.dumps(build(record, fmt.hand)).decode(),
        )
        for record in records
        for name, fmt in FORMATS.items()
    ]
    HandText.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)


def stored(hand_ids: Sequence[int]) -> set[int]:
    """The hands among ``hand_ids`` with a template in every format."""
    complete = (
        HandText.objects.filter(hand_id__in=hand_ids, format__in=list(FORMATS))
        .values("hand_id")
        .annotate(formats=Count("format"))
        .filter(formats=len(FORMATS))
        .values_list("hand_id", flat=True)
    )
    return set(complete)


def templates(hand_ids: Sequence[int], fmt: Format) -> dict[int, str]:
    """The stored templates (JSON text) of ``hand_ids`` in ``fmt``, deriving those missing
    first; hands not finished are absent."""
    found = _stored_templates(hand_ids, fmt)
    missing = [h for h in hand_ids if h not in found]
    if missing:
        derived.derive_hands(missing)
        found.update(_stored_templates(missing, fmt))
    return found


def _stored_templates(hand_ids: Sequence[int], fmt: Format) -> dict[int, str]:
    rows = HandText.objects.filter(hand_id__in=hand_ids, format=fmt.name)
    return dict(rows.values_list("hand_id", "template"))


def hand_text(hand_id: int, fmt: Format, viewer: Viewer) -> str:
    """One finished hand's ``fmt`` text as ``viewer`` may see it, from its stored template."""
    return render(orjson.loads(templates([hand_id], fmt)[hand_id]), viewer)


def iter_texts(
    hands: QuerySet[Hand], fmt: Format, viewer: Viewer, *, chunk_size: int = CHUNK_SIZE
) -> Iterator[str]:
    """The ``fmt`` texts of the finished hands of ``hands`` in id order, as ``viewer`` may
    see them; ``chunk_size`` rows at a time through a server-side cursor (memory stays
    flat), hands without stored texts derived on the spot."""
    rows = (
        hands.filter(ended_at__isnull=False)
        .annotate(stored_text=FilteredRelation("texts", condition=Q(texts__format=fmt.name)))
        .order_by("pk")
        .values_list("pk", "stored_text__template")
    )
    cursor = rows.iterator(chunk_size=chunk_size)
    loads = orjson.loads
    while chunk := list(islice(cursor, chunk_size)):
        missing = [pk for pk, template in chunk if template is None]
        late = templates(missing, fmt) if missing else {}
        for pk, template in chunk:
            yield render(loads(template if template is not None else late[pk]), viewer)
