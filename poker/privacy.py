"""What a viewer may see of a hand's events -- the one place this rule is written.

* Hole cards: their owner sees them; everyone else only once the owner showed them.
* The deck's server seed (``HandStarted.server_seed``/``fixed_deck``, ``HandEnded.server_seed``):
  whoever holds it can rebuild the whole deck, and so every hole card, shown or not.
  It therefore becomes public only when revealing it discloses no card that was not
  already shown: when every player dealt in showed their cards. Otherwise it stays with
  the house (staff and auditors can still run ``verify_deal`` with it). Proving fairness
  to players without exposing mucked hands would need per-card commitments; see
  docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from poker.engine.events import (
    UNKNOWN_CARD,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    PotAwarded,
    redact,
)


def shown_players(events: Sequence[Event]) -> set[int]:
    """Players who showed their cards in these events."""
    return {e.player for e in events if isinstance(e, CardsShown)}


def seed_may_be_public(events: Sequence[Event]) -> bool:
    """True when every player dealt cards has shown them (the seed then reveals nothing)."""
    dealt = {e.player for e in events if isinstance(e, HoleCardsDealt)}
    ended = any(isinstance(e, HandEnded) for e in events)
    return ended and dealt <= shown_players(events)


def as_seen_by(
    event: Event,
    *,
    viewer: int | None = None,
    shown: Collection[int] = (),
    reveal_seed: bool = False,
) -> Event:
    """``event`` as player index ``viewer`` (None: a spectator) may see it, still an event.

    Hole cards the viewer may not see become ``UNKNOWN_CARD``; the deck secrets are blanked
    unless ``reveal_seed``. Exports format these events; :func:`viewable` serializes them.
    """
    if isinstance(event, HandStarted) and not reveal_seed:
        return redact(event)
    if isinstance(event, HandEnded) and not reveal_seed:
        return replace(event, server_seed="")
    if isinstance(event, HoleCardsDealt) and event.player != viewer and event.player not in shown:
        return replace(event, cards=(UNKNOWN_CARD,) * len(event.cards))
    return event


def viewable(
    event: Event,
    seat_numbers: Sequence[int],
    *,
    viewer: int | None = None,
    shown: Collection[int] = (),
    reveal_seed: bool = False,
) -> dict[str, Any]:
    """``event`` as a JSON dict for player index ``viewer`` (None: a spectator), in seats.

    The engine's player indexes stay inside: an event's ``player`` becomes its ``seat``
    (the table's seat number), ``PotAwarded.winners`` are seat numbers, and the per-player
    arrays of ``HandStarted``/``HandEnded`` come with ``seats``, the seat of each entry.
    """
    seen = as_seen_by(event, viewer=viewer, shown=shown, reveal_seed=reveal_seed)
    data = seen.to_dict()
    if isinstance(event, HoleCardsDealt) and seen is not event:
        data["cards"] = None  # on the wire an unseen hand is null, not a row of unknowns
    player = data.pop("player", None)
    if isinstance(player, int) and 0 <= player < len(seat_numbers):
        data["seat"] = seat_numbers[player]
    if isinstance(event, PotAwarded):
        data["winners"] = [seat_numbers[w] for w in event.winners]
    if isinstance(event, HandStarted | HandEnded):
        data["seats"] = list(seat_numbers)
    return data
