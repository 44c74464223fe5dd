"""Hand-history exports: one pure formatter per format (PHH, PokerStars text).

``records.hand_records`` reads hands in bulk into :class:`~handhistory.exports.records.HandRecord`
values; the formatters turn a record and a viewer into text without touching the database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from handhistory.exports import phh, pokerstars
from handhistory.exports.records import HandRecord, Viewer

#: format name -> (one hand, many hands) writers.
FORMATS: dict[
    str, tuple[Callable[[HandRecord, Viewer], str], Callable[[Sequence[HandRecord], Viewer], str]]
] = {
    "phh": (phh.hand_phh, phh.hands_phhs),
    "pokerstars": (pokerstars.hand_text, pokerstars.hands_text),
}
