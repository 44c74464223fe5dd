"""Hand-history exports: one pure formatter per format, and one streaming writer.

``records.iter_hand_records`` reads hands in chunks into
:class:`~handhistory.exports.records.HandRecord` values; a format turns one record and a
viewer into text without touching the database; :func:`write_hands` streams any number of
hands into a text file, keeping only one chunk in memory. Exports read the texts stored
once per hand instead (``stored.iter_texts`` + :func:`write_texts`): see ``templates``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

from handhistory.exports import ohh, phh, pokerstars
from handhistory.exports.records import HandRecord, Viewer


@dataclass(frozen=True, slots=True)
class Format:
    """How one format writes a hand, and how hands follow each other in a file.

    A file of many hands is ``header(1) + hand(r1) + between + header(2) + hand(r2) ... +
    footer``: enough for every format to stream hand by hand.
    """

    name: str
    extension: str
    content_type: str
    hand: Callable[[HandRecord, Viewer], str]
    between: str = "\n"
    header: Callable[[int], str] = lambda _k: ""
    footer: str = ""

    def many(self, records: Iterable[HandRecord], viewer: Viewer) -> str:
        """Many hands as one document (in memory: for files, use :func:`write_hands`)."""
        parts: list[str] = []
        write_hands(self, records, viewer, _ListWriter(parts))
        return "".join(parts)


class _ListWriter:
    def __init__(self, parts: list[str]) -> None:
        self.write = parts.append


FORMATS: dict[str, Format] = {
    "phh": Format(
        name="phh",
        extension="phhs",
        content_type="text/plain; charset=utf-8",
        hand=phh.hand_phh,
        header=phh.table_header,
    ),
    "pokerstars": Format(
        name="pokerstars",
        extension="txt",
        content_type="text/plain; charset=utf-8",
        hand=pokerstars.hand_text,
        between=pokerstars.SEPARATOR,
        footer=pokerstars.SEPARATOR,
    ),
    # One JSON object per hand, a blank line between: the specification's storage format,
    # which it accepts as JSON although a file of many hands is not one JSON value.
    "ohh": Format(
        name="ohh",
        extension="ohh",
        content_type="application/json",
        hand=ohh.hand_ohh,
    ),
}


def write_hands(
    fmt: Format,
    records: Iterable[HandRecord],
    viewer: Viewer,
    out: TextIO | _ListWriter,
    *,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write ``records`` as one ``fmt`` document into ``out``; returns the number of hands.

    ``progress(n)`` is called after each hand with the count so far (callers throttle).
    """
    texts = (fmt.hand(record, viewer) for record in records)
    return write_texts(fmt, texts, out, progress=progress)


def write_texts(
    fmt: Format,
    texts: Iterable[str],
    out: TextIO | _ListWriter,
    *,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write hands already in ``fmt`` text (one each) as one document into ``out``; returns
    the number of hands. ``progress`` as for :func:`write_hands`."""
    count = 0
    for text in texts:
        if count:
            out.write(fmt.between)
        count += 1
        out.write(fmt.header(count))
        out.write(text)
        if progress is not None:
            progress(count)
    if count:
        out.write(fmt.footer)
    return count
