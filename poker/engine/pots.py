"""Main and side pots from contribution layers, and how a pot is split.

Pots are layers of the players' total contributions: every distinct contribution level
closes a layer, and a layer can be won only by players still holding cards who put in at
least that much. Folded players' chips stay in the layers they reached, but folded players
are never eligible. Adjacent layers with the same eligible players merge into one pot, and
a layer that only folded players reached joins the pot below it, so no chip is ever left
without a winner (pokerkit would burn it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """A main or side pot: ``amount`` chips that only ``eligible`` players can win."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(
    committed: tuple[int, ...],
    bets: tuple[int, ...],
    antes: tuple[int, ...],
    active: tuple[bool, ...],
    ante_trimming: bool,
) -> tuple[Pot, ...]:
    """Main pot first, then side pots, from the chips already collected.

    ``committed`` is what each player put in (current ``bets`` included, which are left
    out of the amounts but count for eligibility, as in PHH/pokerkit). Without
    ``ante_trimming`` antes are dead money added to the first pot.

    >>> build_pots((100, 300, 300), (0, 0, 0), (0, 0, 0), (True, True, True), True)
    (Pot(amount=300, eligible=(0, 1, 2)), Pot(amount=400, eligible=(1, 2)))
    >>> build_pots((100, 300, 300), (0, 0, 0), (0, 0, 0), (True, False, True), True)
    (Pot(amount=300, eligible=(0, 2)), Pot(amount=400, eligible=(2,)))
    """
    n = len(committed)
    if not any(bets):
        # Fast path, most hands at showdown: everyone still in put in the same amount
        # (antes aside when they are dead money), so there is one pot for all of them.
        level = -1
        for i in range(n):
            if active[i]:
                c = committed[i] if ante_trimming else committed[i] - antes[i]
                if level == -1:
                    level = c
                elif c != level:
                    break
        else:
            eligible = tuple(i for i in range(n) if active[i])
            total = sum(committed)
            return (Pot(total, eligible),) if total else ()
    return layered_pots(committed, bets, antes, active, ante_trimming)


def layered_pots(
    committed: tuple[int, ...],
    bets: tuple[int, ...],
    antes: tuple[int, ...],
    active: tuple[bool, ...],
    ante_trimming: bool,
) -> tuple[Pot, ...]:
    """:func:`build_pots` without its single-pot fast path (the general algorithm)."""
    n = len(committed)
    amount = 0
    if ante_trimming:
        collected = [committed[i] - bets[i] for i in range(n)]
        pending = committed
    else:
        amount = sum(antes)
        collected = [committed[i] - bets[i] - antes[i] for i in range(n)]
        pending = tuple(committed[i] - antes[i] for i in range(n))
    pots: list[Pot] = []
    previous = 0
    for level in sorted(set(collected)):
        step = level - previous
        amount += step * sum(1 for c in collected if c >= level)
        eligible = tuple(i for i in range(n) if pending[i] >= level and active[i])
        if not eligible:
            # Only folded players reached this layer (e.g. antes above the winner's total):
            # dead money for the pot below, or for everyone still in if there is none.
            eligible = pots[-1].eligible if pots else tuple(i for i in range(n) if active[i])
        while pots and pots[-1].eligible == eligible:
            amount += pots.pop().amount
        if amount:
            pots.append(Pot(amount, eligible))
        amount = 0
        previous = level
    return tuple(pots)


def split_pot(amount: int, winners: tuple[int, ...]) -> tuple[int, ...]:
    """Shares of ``amount`` for ``winners`` (sorted from the first seat left of the button).

    Odd chips go one each to the first winners left of the button.

    >>> split_pot(101, (0, 3))
    (51, 50)
    >>> split_pot(11, (1, 2, 4))
    (4, 4, 3)
    """
    share, odd = divmod(amount, len(winners))
    return tuple(share + (1 if k < odd else 0) for k in range(len(winners)))


def knocked_out_by(
    pots: tuple[Pot, ...], winners: Mapping[int, tuple[int, ...]], player: int
) -> tuple[int, ...]:
    """Who busted ``player`` (left with no chips): the winners of the last (highest) pot
    awarded that ``player`` was eligible for -- the pot that took their last chips, as
    rooms pay a knockout -- in their split order; ``winners`` maps each awarded pot's
    index to its winners. Empty when no pot they were eligible for was awarded.

    >>> pots = (Pot(300, (0, 1, 2)), Pot(400, (1, 2)))
    >>> knocked_out_by(pots, {0: (0,), 1: (2,)}, 1)
    (2,)
    >>> knocked_out_by(pots, {0: (0, 2), 1: (2,)}, 1)
    (2,)
    >>> knocked_out_by((Pot(300, (0, 1, 2)),), {0: (0, 2)}, 1)
    (0, 2)
    """
    eligible = [k for k, pot in enumerate(pots) if player in pot.eligible and k in winners]
    return winners[eligible[-1]] if eligible else ()
