"""The four games as data: deck, hole cards, streets, betting structure and hand ranking.

The core flow never asks which game it plays; it asks the :class:`Variant` for the number
of cards to deal, the betting limits (a small :class:`BettingStructure` strategy) and the
value of a hand. Adding a game means adding a row here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from poker.engine.cards import FULL_DECK, SHORT_DECK
from poker.engine.errors import InvalidConfig
from poker.engine.evaluator import (
    category,
    evaluate,
    evaluate7_unchecked,
    evaluate_omaha,
    evaluate_short_deck,
    short_deck_category,
)


# What a betting structure reads of a hand, named here so that this module stays a leaf:
# ``config`` and ``state`` import the variants, and a variant only needs these fields of
# theirs (``HandConfig`` is a ``BetLimits``, ``HandState`` is ``Chips``, structurally).
class BetLimits(Protocol):
    @property
    def min_bet(self) -> int: ...

    @property
    def small_bet(self) -> int: ...

    @property
    def big_bet(self) -> int: ...

    @property
    def blinds_or_straddles(self) -> tuple[int, ...]: ...


class Chips(Protocol):
    @property
    def stacks(self) -> tuple[int, ...]: ...

    @property
    def bets(self) -> tuple[int, ...]: ...

    @property
    def committed(self) -> tuple[int, ...]: ...


STREET_NAMES: tuple[str, ...] = ("preflop", "flop", "turn", "river")


class BettingStructure(Protocol):
    """How big bets may be: the minimum raise increment, the maximum and the cap."""

    @property
    def name(self) -> str:
        """``no_limit``, ``pot_limit`` or ``fixed_limit``."""
        ...

    @property
    def cap(self) -> int:
        """Most bets (the opening bet or blind plus raises) per street; 0 is no cap."""
        ...

    def min_increment(self, config: BetLimits, street: int) -> int:
        """Smallest full bet or raise increment on ``street`` before anyone raised."""
        ...

    def max_to(self, state: Chips, player: int, min_to: int) -> int:
        """Largest legal *to* amount for ``player`` given the legal minimum ``min_to``."""
        ...


@dataclass(frozen=True, slots=True)
class NoLimit:
    """Any amount up to the whole stack.

    Pre-flop the smallest full raise is the largest blind or straddle (a straddle is a
    live raise, so after a 200 straddle the minimum raise is to 400), never below
    ``min_bet``.
    """

    name: str = "no_limit"
    cap: int = 0

    def min_increment(self, config: BetLimits, street: int) -> int:
        if street == 0:
            return max(config.min_bet, *config.blinds_or_straddles)
        return config.min_bet

    def max_to(self, state: Chips, player: int, min_to: int) -> int:
        return state.stacks[player] + state.bets[player]


@dataclass(frozen=True, slots=True)
class PotLimit:
    """At most the pot after calling: to = largest bet + (pot + the call)."""

    name: str = "pot_limit"
    cap: int = 0

    def min_increment(self, config: BetLimits, street: int) -> int:
        if street == 0:
            return max(config.min_bet, *config.blinds_or_straddles)
        return config.min_bet

    def max_to(self, state: Chips, player: int, min_to: int) -> int:
        bets = state.bets
        pot = sum(state.committed)
        pot_to = 2 * max(bets) - bets[player] + pot
        return min(state.stacks[player] + bets[player], max(min_to, pot_to))


@dataclass(frozen=True, slots=True)
class FixedLimit:
    """Small bet pre-flop and on the flop, big bet on turn and river; a bet and three raises.

    The big blind counts as the pre-flop bet, so pre-flop allows three raises (to four
    small bets), like every later street.
    """

    name: str = "fixed_limit"
    cap: int = 4

    def min_increment(self, config: BetLimits, street: int) -> int:
        return config.small_bet if street < 2 else config.big_bet

    def max_to(self, state: Chips, player: int, min_to: int) -> int:
        return min_to


@dataclass(frozen=True, slots=True)
class Variant:
    """One game: what is dealt, how betting is limited and how hands are compared.

    ``hand_value(hole, board)`` returns an int, higher is better, comparable only within
    the variant; ``hand_name(value)`` names its category (``"flush"``).
    """

    code: str
    name: str
    hole_count: int
    deck: tuple[int, ...]
    #: Board cards dealt when each street starts (pre-flop, flop, turn, river).
    board_counts: tuple[int, ...]
    structure: BettingStructure
    hand_value: Callable[[Sequence[int], Sequence[int]], int]
    hand_name: Callable[[int], str]
    #: Which bet sizes the configuration must give: ("min_bet",) or ("small_bet", "big_bet").
    stakes: tuple[str, ...]


def _holdem_value(hole: Sequence[int], board: Sequence[int]) -> int:
    if len(board) == 5 and len(hole) == 2:
        # Cards were validated when dealt (distinct, in the deck): skip re-checking them.
        return evaluate7_unchecked(*hole, *board)
    return evaluate((*hole, *board))


def _short_deck_value(hole: Sequence[int], board: Sequence[int]) -> int:
    return evaluate_short_deck((*hole, *board))


VARIANTS: dict[str, Variant] = {
    v.code: v
    for v in (
        Variant(
            code="NT",
            name="No-Limit Texas Hold'em",
            hole_count=2,
            deck=FULL_DECK,
            board_counts=(0, 3, 1, 1),
            structure=NoLimit(),
            hand_value=_holdem_value,
            hand_name=category,
            stakes=("min_bet",),
        ),
        Variant(
            code="FT",
            name="Fixed-Limit Texas Hold'em",
            hole_count=2,
            deck=FULL_DECK,
            board_counts=(0, 3, 1, 1),
            structure=FixedLimit(),
            hand_value=_holdem_value,
            hand_name=category,
            stakes=("small_bet", "big_bet"),
        ),
        Variant(
            code="PO",
            name="Pot-Limit Omaha",
            hole_count=4,
            deck=FULL_DECK,
            board_counts=(0, 3, 1, 1),
            structure=PotLimit(),
            hand_value=evaluate_omaha,
            hand_name=category,
            stakes=("min_bet",),
        ),
        Variant(
            code="NS",
            name="No-Limit Short-Deck Hold'em",
            hole_count=2,
            deck=SHORT_DECK,
            board_counts=(0, 3, 1, 1),
            structure=NoLimit(),
            hand_value=_short_deck_value,
            hand_name=short_deck_category,
            stakes=("min_bet",),
        ),
    )
}


def get_variant(code: str) -> Variant:
    """The variant for a PHH code (``NT``, ``FT``, ``PO``, ``NS``)."""
    try:
        return VARIANTS[code]
    except KeyError:
        raise InvalidConfig(
            code="unknown_variant",
            message=f"variant {code!r} is not supported (supported: {', '.join(VARIANTS)})",
            extra={"variant": code, "supported": list(VARIANTS)},
        ) from None
