"""Loading a hand's engine state: the state its table last published in this process,
verified, else a full replay.

The published state (``poker.published``) is used only when it is this hand's and the
stream's head still matches the one it was published at, so a rolled-back or foreign
write can never be served stale; a miss costs one replay.
"""

from __future__ import annotations

from handhistory.models import Hand
from handhistory.store import stream_events, stream_head
from poker.engine.events import event_from_dict
from poker.engine.state import HandState
from poker.engine.transitions import replay
from poker.published import published


def hand_state(
    hand: Hand, *, use_snapshot: bool = True, head: tuple[int, str] | None = None
) -> tuple[HandState, tuple[int, str]]:
    """The engine state of ``hand`` and its stream head (seq, hash); a caller that has
    just read the head (under the table lock) passes it to save the query."""
    if head is None:
        head = stream_head(hand.stream)
    basis = published(hand.table_id) if use_snapshot else None
    if (
        basis is not None
        and basis.hand_id == hand.pk
        and basis.head == head
        and basis.state is not None
    ):
        return basis.state, head
    state = replay(event_from_dict(row.payload) for row in stream_events(hand.stream))
    return state, head
