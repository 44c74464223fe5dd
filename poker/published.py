"""What the last command committed on a table in this process left for its readers.

One entry per table: the public view of that version, and the running hand's players,
engine state (immutable) and stream head. Readers of the version (``selectors.view_at``)
serve any seated viewer's private part from it without the database; whoever needs the
running hand's state (``hands.hand_state``: a command loading its table, the table view,
the staff dashboard) takes it from here when the hand's stream head still matches, else
replays. So the state of a running hand is held once per process, in the entry of the
version that produced it, and a command's working set (``table_io``) holds the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.cache import BoundedCache
from poker.engine.state import HandState


@dataclass(frozen=True)
class Published:
    """What a committed command left for readers of its version: the public view, and the
    running hand (its id, players, engine state and stream head (seq, hash) at that
    state); the hand fields are None between hands."""

    version: int
    public: dict[str, Any]
    player_ids: tuple[int, ...]
    state: HandState | None
    hand_id: int | None = None
    head: tuple[int, str] | None = None


_LIMIT = 4096
_PUBLISHED: BoundedCache[int, Published] = BoundedCache(_LIMIT)


def publish(table_id: int, basis: Published) -> None:
    """Makes ``basis`` what readers of this process see for the table (on commit).

    Always replaces: a reader asks for the version it received, which the command that
    committed it published first, so an entry overtaken by a later commit is only a miss;
    and a table that reuses an id (a reset database) replaces the old table's entry with
    its first command, before any reader can have seen one of its versions. A hand state
    is served only against its stream's head hash (``hands.hand_state``), which no other
    table's hand can share.
    """
    _PUBLISHED.put(table_id, basis)


def published(table_id: int) -> Published | None:
    """What the last command of the table committed in this process published, if any."""
    return _PUBLISHED.get(table_id)
