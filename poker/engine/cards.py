"""Cards as small integers, and their text form.

A card is ``rank * 4 + suit`` with rank 0..12 meaning 2..A and suit 0..3 meaning
clubs, diamonds, hearts, spades. So ``2c`` is 0, ``2d`` is 1 and ``As`` is 51.
Integers keep the evaluator and the deck fast and make events tiny to store.

>>> parse_cards("AsKd7h")
(51, 45, 22)
>>> format_cards((51, 45, 22))
'AsKd7h'
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"

#: Every card of a full 52-card deck, in ascending integer order.
FULL_DECK: tuple[int, ...] = tuple(range(52))
#: The 36 cards of a short deck (sixes to aces), in ascending integer order.
SHORT_DECK: tuple[int, ...] = tuple(range(4 * 4, 52))


class CardParseError(ValueError):
    """Raised for text that is not a sequence of cards such as ``AsKd``."""


_TEXT_TO_CARD = {r + s: i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)}
_CARD_TO_TEXT = {v: k for k, v in _TEXT_TO_CARD.items()}


def card_rank(card: int) -> int:
    """The rank of ``card``: 0 for a deuce up to 12 for an ace."""
    return card >> 2


def card_suit(card: int) -> int:
    """The suit of ``card``: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return card & 3


def parse_card(text: str) -> int:
    """Parse one card such as ``"Td"``; the suit letter may be upper case."""
    card = _TEXT_TO_CARD.get(text[:1].upper() + text[1:].lower()) if len(text) == 2 else None
    if card is None:
        raise CardParseError(f"{text!r} is not a card (expected rank 2-9TJQKA and suit cdhs)")
    return card


def parse_cards(text: str) -> tuple[int, ...]:
    """Parse concatenated cards such as ``"AsKd7h"`` (spaces are ignored)."""
    compact = "".join(text.split())
    if len(compact) % 2:
        raise CardParseError(f"{text!r} has an odd number of characters")
    return tuple(parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2))


def format_card(card: int) -> str:
    """The text form of one card, e.g. ``"As"`` for 51."""
    try:
        return _CARD_TO_TEXT[card]
    except (KeyError, TypeError):
        raise CardParseError(f"{card!r} is not a card integer 0..51") from None


def format_cards(cards: Iterable[int]) -> str:
    """The concatenated text form, e.g. ``"AsKd7h"``."""
    return "".join(format_card(c) for c in cards)
