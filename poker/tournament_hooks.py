"""What a tournament table needs from the tournament it belongs to, filled by the app that
runs tournaments in its ``AppConfig.ready()`` (``tournaments`` sits above ``poker``: it is
never imported from here).

- ``level_of(tournament_id) -> Level``: the blinds and antes the tournament plays now. A
  tournament table reads it when it starts a hand and when it shows its view; it never
  keeps a clock of its own, so every table of a tournament plays the same level.
- ``hand_finished(table_id, hand_id, stacks_by_player, busted_player_ids, knockouts)``:
  called at the end of each hand of a tournament table, inside the command's transaction
  (so the director may balance the tables, place the busted and pay their bounties in the
  same commit). ``knockouts`` maps each busted player to who busted them: the winners of
  the last (highest) pot awarded that the player was eligible for, in the order that
  pot's odd chips went (from the first seat left of the button); several on a split pot.
  Facts only: what a knockout is worth is the tournament's business.
- ``may_deal(tournament_id, table_id) -> bool`` (optional: without it every table may):
  asked, under the table's lock, before a tournament table deals a hand; False holds the
  table (waiting to be balanced, hand-for-hand, a player moving), and the director deals
  it again (``table_deal``) once it may.

Without a registration a tournament table refuses to deal (``tournament_hooks_missing``):
it never falls back to the row's cash blinds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.errors import Conflict


@dataclass(frozen=True, kw_only=True, slots=True)
class Level:
    """A level's forced bets. ``big_blind_ante``: the big blind posts one ante for the
    whole table (``ante`` per player dealt in), as cash tables configure it."""

    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False


LevelOf = Callable[[int], Level]
HandFinished = Callable[
    [int, int, Mapping[int, int], Sequence[int], Mapping[int, tuple[int, ...]]], None
]
MayDeal = Callable[[int, int], bool]


def _always(tournament_id: int, table_id: int) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Hooks:
    level_of: LevelOf
    hand_finished: HandFinished
    may_deal: MayDeal = _always


class TournamentHooksMissing(Conflict):
    default_code = "tournament_hooks_missing"


_hooks: Hooks | None = None


def register(
    *, level_of: LevelOf, hand_finished: HandFinished, may_deal: MayDeal = _always
) -> Hooks | None:
    """Registers the tournament's side; returns the registration it replaces (tests put
    it back with :func:`restore`)."""
    global _hooks
    previous, _hooks = _hooks, Hooks(level_of, hand_finished, may_deal)
    return previous


def restore(hooks: Hooks | None) -> None:
    """Puts back a registration :func:`register` returned."""
    global _hooks
    _hooks = hooks


def registered() -> Hooks | None:
    """The registration, if any (a view shows no level without one)."""
    return _hooks


def hooks(table_id: int) -> Hooks:
    """The registration, or the refusal to play tournament table ``table_id`` without it."""
    if _hooks is None:
        raise TournamentHooksMissing(
            f"Table {table_id} is a tournament table, but no tournament director is "
            "registered (poker.tournament_hooks.register): it deals no hand.",
            table=table_id,
        )
    return _hooks
