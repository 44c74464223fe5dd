"""The state of one hand: an immutable snapshot, rebuilt by folding events.

:class:`HandState` is a slotted object whose fields are ints, strs and tuples, so a
snapshot can be shared freely and copying it is a handful of pointer copies (the engine
copies once per command, then applies that command's events to its private copy). Treat
every field as read-only; the functions of this package return new states.

Player indices follow PHH: 0 is the first seat left of the button, the button is the last
player (``button``). Heads-up, player 1 is the button and posts the small blind.
"""

from __future__ import annotations

from poker.engine.config import HandConfig
from poker.engine.pots import Pot, build_pots
from poker.engine.variants import STREET_NAMES, Variant

# Phases of a hand, in the order they usually occur.
POSTING = "posting"  # forced bets are going in
DEALING_HOLE = "dealing_hole"  # waiting for hole cards
BETTING = "betting"  # ``actor`` must act
RETURNING = "returning"  # an uncalled bet is about to go back
DEALING_BOARD = "dealing_board"  # waiting for the next street's cards
SHOWDOWN = "showdown"  # players show or muck in ``showdown_queue`` order
RUNOUT = "runout"  # all-in: remaining board cards to deal, no more betting
AWARDING = "awarding"  # rake and pots are about to be settled
ENDED = "ended"


_new = object.__new__


class HandState:
    """A snapshot of a hand. Read the fields; never assign them.

    Money: ``stacks`` (chips behind), ``bets`` (this street), ``committed`` (everything put
    in this hand, including ``bets`` and antes), ``won`` (chips received from pots),
    ``rake``. Cards: ``hole_cards`` (PRIVATE: index by player; ``-1`` is unknown),
    ``board``, ``shown``. Flow: ``phase``, ``street``, ``actor``, ``showdown_queue``.
    """

    __slots__ = (
        "acted",
        "active",
        "allin_pending",
        "allin_sum",
        "antes_posted",
        "bets",
        "board",
        "committed",
        "config",
        "dealt",
        "deck",
        "deck_commitment",
        "deck_pos",
        "forced_plan",
        "full_raise",
        "game",
        "hole_cards",
        "mucked",
        "opener",
        "pending_return",
        "phase",
        "player_count",
        "queue",
        "raise_count",
        "rake",
        "rake_by_pot",
        "server_seed",
        "showdown_queue",
        "shown",
        "stacks",
        "street",
        "won",
    )

    config: HandConfig
    game: Variant
    player_count: int
    phase: str
    #: 0 pre-flop, 1 flop, 2 turn, 3 river.
    street: int
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    committed: tuple[int, ...]
    antes_posted: tuple[int, ...]
    #: Still holding cards (not folded, not mucked).
    active: tuple[bool, ...]
    hole_cards: tuple[tuple[int, ...], ...]
    dealt: tuple[bool, ...]
    board: tuple[int, ...]
    shown: tuple[bool, ...]
    mucked: tuple[bool, ...]
    #: Players still to act this betting round, next first.
    queue: tuple[int, ...]
    #: Bit ``1 << i`` set when player ``i`` acted since the last full raise.
    acted: int
    #: The largest bet or raise increment this street (0 before any).
    full_raise: int
    #: Sum of consecutive all-in raise increments (short all-ins may add up to a full raise).
    allin_sum: int
    allin_pending: bool
    raise_count: int
    #: Last aggressor of the street, else the first to act: where showdown order starts.
    opener: int
    pending_return: tuple[int, int] | None
    showdown_queue: tuple[int, ...]
    forced_plan: tuple[tuple[str, int, int], ...]
    #: SECRET: the shuffled deck (emptied when the hand ends) and how many cards were dealt.
    deck: tuple[int, ...]
    deck_pos: int
    #: SECRET until the hand ends.
    server_seed: str
    deck_commitment: str
    won: tuple[int, ...]
    rake: int
    rake_by_pot: tuple[int, ...]

    def copy(self) -> HandState:
        """A shallow copy (fields are immutable, so it is independent).

        Spelled out field by field: this runs once per command and a generic loop over
        ``__slots__`` costs several times more.
        """
        new = _new(HandState)
        new.acted = self.acted
        new.active = self.active
        new.allin_pending = self.allin_pending
        new.allin_sum = self.allin_sum
        new.antes_posted = self.antes_posted
        new.bets = self.bets
        new.board = self.board
        new.committed = self.committed
        new.config = self.config
        new.dealt = self.dealt
        new.deck = self.deck
        new.deck_commitment = self.deck_commitment
        new.deck_pos = self.deck_pos
        new.forced_plan = self.forced_plan
        new.full_raise = self.full_raise
        new.game = self.game
        new.hole_cards = self.hole_cards
        new.mucked = self.mucked
        new.opener = self.opener
        new.pending_return = self.pending_return
        new.phase = self.phase
        new.player_count = self.player_count
        new.queue = self.queue
        new.raise_count = self.raise_count
        new.rake = self.rake
        new.rake_by_pot = self.rake_by_pot
        new.server_seed = self.server_seed
        new.showdown_queue = self.showdown_queue
        new.shown = self.shown
        new.stacks = self.stacks
        new.street = self.street
        new.won = self.won
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in HandState.__slots__)

    __hash__ = None  # type: ignore[assignment]  # equal by value and mutable: not hashable, as Python does for a class defining __eq__

    def __repr__(self) -> str:
        return (
            f"HandState({self.game.code}, phase={self.phase}, street={self.street_name}, "
            f"actor={self.actor}, stacks={self.stacks}, bets={self.bets}, board={self.board})"
        )

    @property
    def actor(self) -> int | None:
        """The player who must act now, or None when no betting decision is pending."""
        return self.queue[0] if self.phase == BETTING and self.queue else None

    @property
    def street_name(self) -> str:
        """``preflop``, ``flop``, ``turn`` or ``river``."""
        return STREET_NAMES[self.street]

    @property
    def button(self) -> int:
        """Index of the button: always the last player (PHH convention)."""
        return self.player_count - 1

    @property
    def is_over(self) -> bool:
        """True once the pots have been awarded."""
        return self.phase == ENDED

    @property
    def all_in(self) -> tuple[bool, ...]:
        """Players still in the hand with no chips behind."""
        return tuple(a and s == 0 for a, s in zip(self.active, self.stacks, strict=True))

    @property
    def showdown_next(self) -> int | None:
        """The player who must show or muck now, or None."""
        return self.showdown_queue[0] if self.phase == SHOWDOWN else None

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot first, then side pots, from the chips collected so far.

        Bets of the current street are not included until the round closes.
        """
        return build_pots(
            self.committed, self.bets, self.antes_posted, self.active, self.config.ante_trimming
        )

    @property
    def total_pot(self) -> int:
        """All chips put in this hand, current bets included, before rake."""
        return sum(self.committed)

    def hole_cards_of(self, player: int) -> tuple[int, ...]:
        """``player``'s hole cards: show them to that player only (and to all once shown)."""
        return self.hole_cards[player]
