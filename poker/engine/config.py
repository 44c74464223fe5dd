"""The configuration of one hand: game, stakes, forced bets, stacks and rake.

Forced bets are per-player tuples in PHH order (player 0 is left of the button, the
button is last), so any mix of blinds, straddles, button blinds, big-blind antes or dead
blinds is just data. As in PHH, with exactly two players both tuples are read reversed:
``blinds_or_straddles=(50, 100)`` makes the button (player 1) post the 50 small blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poker.engine.errors import InvalidConfig
from poker.engine.variants import Variant, get_variant


@dataclass(frozen=True, slots=True, kw_only=True)
class RakeConfig:
    """House rake: ``bps`` basis points of each pot (500 = 5 %), rounded down.

    ``cap`` limits the rake of the whole hand (0 means no cap). With ``no_flop_no_drop``
    a hand that ends before the flop is dealt pays nothing.
    """

    bps: int = 0
    cap: int = 0
    no_flop_no_drop: bool = True


NO_RAKE = RakeConfig()


def forced_by_player(forced: Sequence[int]) -> tuple[int, ...]:
    """What each player posts from a PHH forced-bet tuple (antes, blinds or straddles):
    the one statement of PHH's heads-up rule, read by the engine and written by the tables.

    With exactly two players PHH reads the tuple reversed, so the button (player 1) posts
    the first entry; with more it is read as it stands. The reading keeps or swaps, so it
    is its own inverse: applied to the amounts each player should post, it gives the tuple
    that makes them post it.

    >>> forced_by_player((50, 100)), forced_by_player((50, 100, 0))
    ((100, 50), (50, 100, 0))
    """
    return tuple(forced[::-1]) if len(forced) == 2 else tuple(forced)


@dataclass(frozen=True, slots=True)
class BlindSeats:
    """The engine indexes (player 0 left of the button, the button last) of the small
    blind, the big blind and the button."""

    small: int
    big: int
    button: int


def blind_seats(players: int) -> BlindSeats:
    """Which engine index posts which blind in a hand of ``players``: the one statement of
    it, for the tables that build the forced bets and for everything that names them.

    Left of the button posts the small blind and the next player the big; heads-up the
    button posts the small blind and the other player the big.

    >>> blind_seats(2), blind_seats(6)
    (BlindSeats(small=1, big=0, button=1), BlindSeats(small=0, big=1, button=5))
    """
    if players < 2:
        raise InvalidConfig(
            code="invalid_player_count",
            message=f"a hand needs 2 to 23 players, got {players}",
            extra={"player_count": players},
        )
    button = players - 1
    if players == 2:
        return BlindSeats(small=button, big=0, button=button)
    return BlindSeats(small=0, big=1, button=button)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandConfig:
    """Everything that is fixed before the first card of a hand.

    ``min_bet`` is the smallest bet of no-limit and pot-limit games (usually the big blind);
    fixed-limit games give ``small_bet`` and ``big_bet`` instead. ``ante_trimming`` (PHH's
    ``ante_trimming_status``) treats antes like bets when building side pots, right for
    uniform antes; set it False for big-blind or button antes, which then go to the main
    pot as dead money.

    >>> cfg = HandConfig(variant="NT", starting_stacks=(1000, 1000, 1000),
    ...                  blinds_or_straddles=(5, 10, 0), min_bet=10)
    >>> cfg.player_count, cfg.antes
    (3, (0, 0, 0))
    """

    variant: str
    starting_stacks: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    antes: tuple[int, ...] = ()
    min_bet: int = 0
    small_bet: int = 0
    big_bet: int = 0
    ante_trimming: bool = True
    rake: RakeConfig = NO_RAKE

    def __post_init__(self) -> None:
        n = len(self.starting_stacks)
        if not self.antes:
            object.__setattr__(self, "antes", (0,) * n)
        object.__setattr__(self, "starting_stacks", tuple(self.starting_stacks))
        object.__setattr__(self, "antes", tuple(self.antes))
        object.__setattr__(self, "blinds_or_straddles", tuple(self.blinds_or_straddles))
        _validate(self)

    @property
    def player_count(self) -> int:
        """Number of players dealt in."""
        return len(self.starting_stacks)

    @property
    def game(self) -> Variant:
        """The :class:`Variant` this configuration plays."""
        return get_variant(self.variant)


def _is_chips(value: object) -> bool:
    return type(value) is int and value >= 0


def _validate(cfg: HandConfig) -> None:
    variant = get_variant(cfg.variant)
    n = len(cfg.starting_stacks)
    if not 2 <= n <= 23:
        raise InvalidConfig(
            code="invalid_player_count",
            message=f"a hand needs 2 to 23 players, got {n}",
            extra={"player_count": n},
        )
    for name in ("antes", "blinds_or_straddles"):
        values = getattr(cfg, name)
        if len(values) != n or not all(_is_chips(v) for v in values):
            raise InvalidConfig(
                code="invalid_forced_bets",
                message=f"{name} must be {n} non-negative integers, got {values!r}",
                extra={"field": name},
            )
    if not all(_is_chips(s) and s > 0 for s in cfg.starting_stacks):
        raise InvalidConfig(
            code="invalid_stacks",
            message=f"starting stacks must be positive integers, got {cfg.starting_stacks!r}",
        )
    for name in ("min_bet", "small_bet", "big_bet"):
        value = getattr(cfg, name)
        if not _is_chips(value) or (name in variant.stakes and value <= 0):
            raise InvalidConfig(
                code="invalid_stakes",
                message=f"{variant.name} needs a positive integer {name}, got {value!r}",
                extra={"field": name},
            )
    rake = cfg.rake
    if not (_is_chips(rake.bps) and rake.bps <= 10_000 and _is_chips(rake.cap)):
        raise InvalidConfig(
            code="invalid_rake",
            message=f"rake needs 0..10000 basis points and a non-negative cap, got {rake!r}",
        )
