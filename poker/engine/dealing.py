"""Cards: the deck a hand deals from, and the explicit dealing commands of replays.

A hand started with a deck source deals by itself: hole cards in player order (each
player's cards consecutive), then each street's board cards, straight from the shuffled
deck with no burn cards. The shuffle is a pure function of the SECRET server seed (plus
client seeds and nonce) recorded in ``HandStarted``, so a server that crashed rebuilds the
same deck from the events and keeps dealing; the dealt cards are recorded in the events,
so replay never needs the shuffle to know what was dealt.

A hand started without a deck waits for :func:`deal_hole` and :func:`deal_board` (the
PHH replay path), where ``-1`` marks a hole card nobody saw (PHH ``??``).
"""

from __future__ import annotations

from collections.abc import Sequence

from poker.engine.commands import Result, check_player, run
from poker.engine.errors import IllegalAction
from poker.engine.events import UNKNOWN_CARD, BoardDealt, HoleCardsDealt
from poker.engine.state import DEALING_BOARD, DEALING_HOLE, RUNOUT, HandState
from poker.engine.variants import STREET_NAMES

__all__ = [
    "can_deal_board",
    "can_deal_hole",
    "deal_board",
    "deal_hole",
    "verify_deal_board",
    "verify_deal_hole",
]


def _validate_cards(
    state: HandState, cards: Sequence[int], expected: int, action: str, allow_unknown: bool
) -> tuple[int, ...]:
    cards = tuple(cards)
    if len(cards) != expected:
        raise IllegalAction(
            code="wrong_card_count",
            message=f"{action} refused: {expected} cards expected, got {len(cards)}",
            extra={"expected": expected, "got": len(cards)},
        )
    deck = set(state.game.deck)
    seen = {c for hole in state.hole_cards for c in hole} | set(state.board)
    for card in cards:
        if card == UNKNOWN_CARD and allow_unknown:
            continue
        if type(card) is not int or card not in deck:
            raise IllegalAction(
                code="invalid_card",
                message=f"{action} refused: {card!r} is not a card of the {state.game.name} deck",
                extra={"card": repr(card)},
            )
        if card in seen:
            raise IllegalAction(
                code="duplicate_card",
                message=f"{action} refused: card {card} was already dealt",
                extra={"card": card},
            )
        seen.add(card)
    return cards


def _refuse_with_deck(state: HandState, action: str) -> None:
    if state.deck:
        raise IllegalAction(
            code="deck_in_use",
            message=f"{action} refused: this hand deals from its own deck",
        )


def verify_deal_hole(state: HandState, player: int, cards: Sequence[int]) -> tuple[int, ...]:
    """Hole cards for ``player`` while hole cards are being dealt; ``-1`` means unknown."""
    p = check_player(state, player, "deal_hole")
    _refuse_with_deck(state, "deal_hole")
    if state.phase != DEALING_HOLE or state.dealt[p]:
        raise IllegalAction(
            code="not_dealing_hole",
            message=f"deal_hole refused: {{player}} cannot receive hole cards now "
            f"(phase {state.phase})",
            extra={"phase": state.phase},
            players={"player": p},
        )
    return _validate_cards(state, cards, state.game.hole_count, "deal_hole", True)


def can_deal_hole(state: HandState, player: int, cards: Sequence[int]) -> bool:
    """Whether :func:`deal_hole` would be accepted."""
    try:
        verify_deal_hole(state, player, cards)
    except IllegalAction:
        return False
    return True


def deal_hole(state: HandState, player: int, cards: Sequence[int]) -> Result:
    """Give ``player`` their hole cards (explicit dealing only)."""
    dealt = verify_deal_hole(state, player, cards)
    return run(state, HoleCardsDealt(player=player, cards=dealt))


def verify_deal_board(state: HandState, cards: Sequence[int]) -> tuple[int, ...]:
    """The next street's board cards, once its betting may start or during a run-out."""
    check_player(state, 0, "deal_board")
    _refuse_with_deck(state, "deal_board")
    if state.phase not in (DEALING_BOARD, RUNOUT):
        raise IllegalAction(
            code="not_dealing_board",
            message=f"deal_board refused: no board cards are due (phase {state.phase})",
            extra={"phase": state.phase},
        )
    street = state.street + 1
    count = state.game.board_counts[street]
    return _validate_cards(state, cards, count, f"deal_board ({STREET_NAMES[street]})", False)


def can_deal_board(state: HandState, cards: Sequence[int]) -> bool:
    """Whether :func:`deal_board` would be accepted."""
    try:
        verify_deal_board(state, cards)
    except IllegalAction:
        return False
    return True


def deal_board(state: HandState, cards: Sequence[int]) -> Result:
    """Deal the next street's board cards (explicit dealing only)."""
    dealt = verify_deal_board(state, cards)
    return run(state, BoardDealt(street=state.street + 1, cards=dealt))
