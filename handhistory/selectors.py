"""Reads of the hand history for the API: a hand exported as text."""

from __future__ import annotations

from core.errors import Conflict, InvalidRequest, NotFound
from handhistory.exports import FORMATS
from handhistory.exports.records import STAFF, Viewer, hand_records
from poker.models import Hand


def hand_export(*, hand_id: int, viewer_id: int | None, fmt: str, full: bool = False) -> str:
    """Hand ``hand_id`` as ``fmt`` text, as ``viewer_id`` may see it (``full``: staff, every
    card, any hand). The same refusals as the JSON hand view: someone else's hand is unknown."""
    if fmt not in FORMATS:
        raise InvalidRequest(
            f"Unknown export format {fmt!r} (known: {', '.join(sorted(FORMATS))}).",
            code="unknown_format",
            format=fmt,
            formats=sorted(FORMATS),
        )
    hand = Hand.objects.filter(pk=hand_id).values("player_ids", "ended_at").first()
    if hand is None or not (full or viewer_id in hand["player_ids"]):
        raise NotFound(f"No hand {hand_id} in your history.", code="hand_not_found", hand=hand_id)
    if hand["ended_at"] is None:
        raise Conflict(
            f"Hand {hand_id} is still being played; it can be exported once it ends.",
            code="hand_in_progress",
            hand=hand_id,
        )
    (record,) = hand_records([hand_id])
    return FORMATS[fmt].hand(record, STAFF if full else Viewer(user_id=viewer_id))
