"""Server -> client updates of the live table WebSocket (docs/protocol.md): an update's
wire text and what it changes for one connection's user.

Pure and synchronous (``poker.consumers`` does the I/O). An update arrives as the dict the
command runner broadcast, or as an update-log row read for a resync
(``poker.table_events.read_updates``); :func:`received` reads it once per process into a
typed :class:`~poker.table_events.Update` with the text that goes on the wire, and
:class:`Watcher` matches on its typed events to tell when a ``private`` frame is due.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from core.cache import BoundedCache
from poker.table_events import (
    ChatPosted,
    HandEvents,
    PlayerBusted,
    PlayerLeaving,
    PlayerLeft,
    PlayerMovedOut,
    PlayerSat,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeatedWithChips,
    PlayerToppedUp,
    TurnStarted,
    TurnTimedOut,
    Update,
    read_update,
)

#: The keys of a public update on the wire; anything else a message carries (the update
#: log's ``schema``, the channel layer's own keys) stays off it.
_UPDATE_KEYS = ("type", "version", "events", "public")


@dataclass(frozen=True, slots=True)
class Received:
    """An update read: typed, and its wire text (the same bytes for every connection)."""

    update: Update
    wire: str


#: (table, version) -> the update read: every connection of this process watching the
#: table sends the same bytes, so it is read and serialised once. Small and bounded.
_RECEIVED: BoundedCache[tuple[int, int], Received] = BoundedCache(1024)


def received(table_id: int, message: Mapping[str, Any]) -> Received:
    """``message`` (an update in today's shape) read, once per (table, version)."""
    cache_key = (table_id, int(message["version"]))
    out = _RECEIVED.get(cache_key)
    if out is None:
        wire = json.dumps(
            {k: message[k] for k in _UPDATE_KEYS if k in message}, separators=(",", ":")
        )
        out = Received(update=read_update(message), wire=wire)
        _RECEIVED.put(cache_key, out)
    return out


class Due(IntEnum):
    """What an update changes of what only the connection's user may see, by weight."""

    NOTHING = 0
    #: Only their turn ended within the same hand: their legal actions are gone.
    TURN_ENDED = 1
    #: New hole cards, the turn coming to them, their seat or its state: a fresh view.
    FULL = 2


class Watcher:
    """What one connection's user has seen publicly: their seat, whose turn it is, the hand,
    and the last private part (``you``) sent."""

    def __init__(self, user_id: int | None) -> None:
        self.user_id = user_id
        self.my_seat: int | None = None
        self.actor_seat: int | None = None
        self.hand_id: int | None = None
        self.you: dict[str, Any] | None = None

    def absorb(self, public: Mapping[str, Any] | None) -> None:
        """Remembers my seat, whose turn it is and the hand, from a public view."""
        if not public:
            return
        if "seats" in public and self.user_id is not None:
            self.my_seat = next(
                (s["seat"] for s in public["seats"] if s.get("user_id") == self.user_id), None
            )
        hand = public.get("hand")
        self.actor_seat = hand.get("actor_seat") if hand else None
        self.hand_id = hand.get("id") if hand else None

    def due(self, update: Update) -> Due:
        """Absorbs a public update; says what it changes of what only this user may see."""
        before = (self.my_seat, self.actor_seat, self.hand_id)
        self.absorb(update.public)
        if self.user_id is None:
            return Due.NOTHING
        seat, actor, hand = before
        mine = self.my_seat
        if mine != seat:
            return Due.FULL
        for event in update.events:
            match event:
                case HandEvents() if event.dealt_to(mine):
                    return Due.FULL
                case ChatPosted():
                    pass  # a chat line changes nothing of mine
                case (
                    PlayerSat(user_id=who)
                    | PlayerLeaving(user_id=who)
                    | PlayerLeft(user_id=who)
                    | PlayerSatOut(user_id=who)
                    | PlayerSatIn(user_id=who)
                    | PlayerToppedUp(user_id=who)
                    | PlayerSeatedWithChips(user_id=who)
                    | PlayerMovedOut(user_id=who)
                    | PlayerBusted(user_id=who)
                    | TurnStarted(user_id=who)
                    | TurnTimedOut(user_id=who)
                ) if who == self.user_id:
                    return Due.FULL  # sat, left, sat out/in, timed out, my turn started...
        if hand != self.hand_id and self.you and self.you.get("hole_cards"):
            return Due.FULL  # my cards of the finished hand are gone
        if mine is None:
            return Due.NOTHING
        # My turn: newly, or the hand moved on (legal actions may differ); a chat line or
        # someone sitting down changes nothing of mine.
        if self.actor_seat == mine and (
            actor != mine or hand != self.hand_id or update.has_hand_events
        ):
            return Due.FULL
        if actor == mine and self.actor_seat != mine:
            return Due.TURN_ENDED if hand == self.hand_id else Due.FULL
        return Due.NOTHING
