"""Who may see what of a hand -- the one place these rules are written.

* Hole cards: their owner sees them; everyone else only once the owner showed them
  (:func:`hole_cards_visible`; at a live table :func:`cards_on_the_table`; in a replay,
  from the step they were shown: :func:`sees_from_the_deal`).
* The private part of a table view (own hole cards, own legal actions) goes to its owner
  only (:func:`private_part`); broadcasts carry the public form alone
  (:func:`public_hand_events`).
* The deck's server seed (``HandStarted.server_seed``/``fixed_deck``, ``HandEnded.server_seed``):
  whoever holds it can rebuild the whole deck, and so every hole card, shown or not.
  It therefore becomes public only when revealing it discloses no card that was not
  already shown: when every player dealt in showed their cards
  (:func:`seed_may_be_public`, :func:`seed_may_be_public_at`). Otherwise it stays with
  the house (staff and auditors can still run ``verify_deal`` with it). Proving fairness
  to players without exposing mucked hands would need per-card commitments; see
  docs/architecture.md.
* A hand's history is read by its players, and by staff, who see every card
  (:func:`may_read_hand`; the staff permission is checked at the edges).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from poker.engine.betting import legal_actions
from poker.engine.cards import format_cards
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
from poker.engine.state import HandState


def hole_cards_visible(owner: int, *, viewer: int | None, shown: Collection[int]) -> bool:
    """Whether player index ``viewer`` (None: a spectator) may see ``owner``'s hole cards:
    their own, or once the owner showed them."""
    return owner == viewer or owner in shown


def shown_players(events: Sequence[Event]) -> set[int]:
    """Players who showed their cards in these events."""
    return {e.player for e in events if isinstance(e, CardsShown)}


def seed_may_be_public(events: Sequence[Event]) -> bool:
    """True when every player dealt cards has shown them (the seed then reveals nothing)."""
    dealt = {e.player for e in events if isinstance(e, HoleCardsDealt)}
    ended = any(isinstance(e, HandEnded) for e in events)
    return ended and dealt <= shown_players(events)


def shown_at(state: HandState) -> set[int]:
    """The players of a running hand who showed their cards so far."""
    return {i for i, shown in enumerate(state.shown) if shown}


def seed_may_be_public_at(state: HandState) -> bool:
    """:func:`seed_may_be_public` for a hand's engine state: over, every player showed."""
    return state.is_over and shown_at(state) >= set(range(state.player_count))


def cards_on_the_table(state: HandState, player: int) -> str | None:
    """A seat's cards in the public view of a live hand: once shown, else None."""
    return format_cards(state.hole_cards[player]) if state.shown[player] else None


def private_part(
    seat: int, seat_state: str, state: HandState | None, player: int | None
) -> dict[str, Any]:
    """The ``you`` of a table view, for the player at ``seat`` (engine index ``player`` in
    the running hand ``state``, if dealt in) and for them only: their own hole cards and,
    on their turn, their legal actions."""
    you: dict[str, Any] = {
        "seat": seat,
        "state": seat_state,
        "hole_cards": None,
        "legal_actions": None,
    }
    if state is not None and player is not None:
        you["hole_cards"] = format_cards(state.hole_cards_of(player))
        legal = legal_actions(state)
        if legal is not None and legal.actor == player:
            you["legal_actions"] = {
                "actions": list(legal.actions),
                "call_amount": legal.call_amount,
                "min_to": legal.min_to,
                "max_to": legal.max_to,
            }
    return you


def public_hand_events(
    events: Sequence[Event], state: HandState, seat_numbers: Sequence[int]
) -> list[dict[str, Any]]:
    """``events`` just produced in a hand now at ``state``, as everyone may see them (what
    a table broadcasts): no hole cards not shown, the seed only when it reveals nothing."""
    shown, reveal = shown_at(state), seed_may_be_public_at(state)
    return [viewable(e, seat_numbers, shown=shown, reveal_seed=reveal) for e in events]


def may_read_hand(viewer_id: int | None, player_ids: Collection[int], *, staff: bool) -> bool:
    """Whether ``viewer_id`` may read a hand's history: its players may (seeing what they
    saw at the table), and staff (seeing every card)."""
    return staff or (viewer_id is not None and viewer_id in player_ids)


def sees_from_the_deal(player: int, *, viewer: int | None, staff: bool) -> bool:
    """Whether a replay shows ``player``'s hole cards from the deal to player index
    ``viewer``: their own, or every hand for staff; others' only from the step they were
    shown (:func:`hole_cards_visible` with nothing shown yet)."""
    return staff or hole_cards_visible(player, viewer=viewer, shown=())


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
    if isinstance(event, HoleCardsDealt) and not hole_cards_visible(
        event.player, viewer=viewer, shown=shown
    ):
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
    """``event`` as a JSON dict for player index ``viewer`` (None: a spectator), in seats:
    :func:`as_seen_by`, then :func:`on_the_wire`."""
    return on_the_wire(
        as_seen_by(event, viewer=viewer, shown=shown, reveal_seed=reveal_seed), seat_numbers
    )


def on_the_wire(seen: Event, seat_numbers: Sequence[int]) -> dict[str, Any]:
    """An event already as its viewer may see it (:func:`as_seen_by`) as a JSON dict.

    An unseen hand is null, not a row of unknowns. The engine's player indexes stay
    inside: an event's ``player`` becomes its ``seat`` (the table's seat number),
    ``PotAwarded.winners`` are seat numbers, and the per-player arrays of
    ``HandStarted``/``HandEnded`` come with ``seats``, the seat of each entry.
    """
    data = seen.to_dict()
    if isinstance(seen, HoleCardsDealt) and UNKNOWN_CARD in seen.cards:
        data["cards"] = None
    player = data.pop("player", None)
    if isinstance(player, int) and 0 <= player < len(seat_numbers):
        data["seat"] = seat_numbers[player]
    if isinstance(seen, PotAwarded):
        data["winners"] = [seat_numbers[w] for w in seen.winners]
    if isinstance(seen, HandStarted | HandEnded):
        data["seats"] = list(seat_numbers)
    return data
