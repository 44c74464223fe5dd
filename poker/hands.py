"""Loading a hand's engine state: a verified in-process snapshot, else a full replay.

A snapshot is used only when the stream's head hash still matches the one it was taken at,
so a rolled-back or foreign write can never be served stale; a miss costs one replay.
"""

from __future__ import annotations

from core.cache import BoundedCache
from handhistory.models import Hand
from handhistory.store import stream_events, stream_head
from poker.engine.events import event_from_dict
from poker.engine.state import HandState
from poker.engine.transitions import replay

#: hand id -> (stream head hash, state). Several threads of one process remember hands
#: (the ASGI thread pool, bot threads): the cache's lock keeps their evictions apart.
_SNAPSHOTS: BoundedCache[int, tuple[str, HandState]] = BoundedCache(2048)


def hand_state(
    hand: Hand, *, use_snapshot: bool = True, head: tuple[int, str] | None = None
) -> tuple[HandState, tuple[int, str]]:
    """The engine state of ``hand`` and its stream head (seq, hash); a caller that has
    just read the head (under the table lock) passes it to save the query."""
    if head is None:
        head = stream_head(hand.stream)
    cached = _SNAPSHOTS.get(hand.pk) if use_snapshot else None
    if cached is not None and cached[0] == head[1]:
        return cached[1], head
    state = replay(event_from_dict(row.payload) for row in stream_events(hand.stream))
    return state, head


def remember(hand_id: int, head_hash: str, state: HandState) -> None:
    """Keeps ``state`` as the snapshot of the hand at ``head_hash`` (after commit)."""
    _SNAPSHOTS.put(hand_id, (head_hash, state))
