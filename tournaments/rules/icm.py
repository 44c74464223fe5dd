"""ICM equity (Malmuth-Harville), chip chop, and deal proposals at the final table.

**ICM**: a player's chance to finish first is their share of the chips; given who
finished above, their chance to finish next is their share of the chips left (Harville).
Equity is the prize of each place weighted by the chance to finish there, computed
exactly over the subsets of players still to be placed (2**n subsets, each visited once:
up to 10 players, fast).

**Chip chop**: when the prizes left are one per player, each player gets the lowest of
them and the rest is shared by chip count; when fewer prizes than players are left (a
deal before the last places are in the money), everything is shared by chip count.

**Deal**: an ICM deal or a chip chop of the prizes left, after setting aside an amount
``left_to_play_for`` out of first prize: the tournament plays on for that amount (winner
takes it) or, when it is zero, ends.

**Rounding**: each amount is rounded down to the unit; the units left over (fewer than
the players) go one each to the largest fractions rounded away, ties to the larger stack,
then to the player listed first. Amounts always sum exactly to what is dealt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from math import floor
from typing import Literal

from tournaments.rules.errors import DealError

#: The most players ICM is computed for (2**n subsets).
ICM_MAX_PLAYERS = 10

Method = Literal["icm", "chip_chop"]


@dataclass(frozen=True, kw_only=True)
class Deal:
    """A proposed deal: each player's amount (player -> minor units) and what is left
    to play for."""

    method: Method
    amounts: dict[int, int] = field(hash=False)
    left_to_play_for: int


def _check(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    problem = None
    if not 2 <= len(stacks) <= ICM_MAX_PLAYERS:
        problem = f"{len(stacks)} players: a deal is for 2 to {ICM_MAX_PLAYERS}"
    elif min(stacks) <= 0:
        problem = "every player in a deal has chips"
    elif not 1 <= len(prizes) <= len(stacks):
        problem = f"{len(prizes)} prizes for {len(stacks)} players: 1 prize at least, 1 per player at most"
    elif prizes[-1] < 0 or any(a < b for a, b in pairwise(prizes)):
        problem = f"prizes {list(prizes)} are >= 0 and fall from first place"
    if problem:
        raise DealError(code="invalid_deal", message=problem)


def icm_equities(*, stacks: Sequence[int], prizes: Sequence[int]) -> tuple[float, ...]:
    """Each player's ICM equity (in the prizes' units), in the order of ``stacks``;
    ``prizes`` by place, first place first."""
    _check(stacks, prizes)
    n, paid = len(stacks), len(prizes)
    full = (1 << n) - 1
    chips = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        chips[mask] = chips[mask ^ low] + stacks[low.bit_length() - 1]
    reach = [0.0] * (full + 1)
    reach[full] = 1.0
    equity = [0.0] * n
    # A subset is reached only from its supersets, which are larger numbers: descending
    # order visits each subset after every way into it.
    for mask in range(full, 0, -1):
        chance = reach[mask]
        place = n - mask.bit_count()
        if chance == 0.0 or place >= paid:
            continue
        prize, total = prizes[place], chips[mask]
        bits = mask
        while bits:
            low = bits & -bits
            bits ^= low
            i = low.bit_length() - 1
            first = chance * stacks[i] / total
            equity[i] += first * prize
            reach[mask ^ low] += first
    return tuple(equity)


def _round_exact(total: int, exact: Sequence[float | Fraction], stacks: Sequence[int]) -> list[int]:
    amounts = [floor(x) for x in exact]
    left = total - sum(amounts)
    assert 0 <= left <= len(amounts)
    order = sorted(range(len(amounts)), key=lambda i: (-(exact[i] - amounts[i]), -stacks[i], i))
    for i in order[:left]:
        amounts[i] += 1
    return amounts


def share_by_chips(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """The chip chop of ``prizes`` (falling, at most one per player) among ``stacks``
    (chips, each > 0), in their order: the lowest prize each when there is one per
    player, the rest by chips, rounded as the module says. Any number of players."""
    floor_prize = prizes[-1] if len(prizes) == len(stacks) else 0
    rest, chips = sum(prizes) - floor_prize * len(stacks), sum(stacks)
    shares = [Fraction(rest * c, chips) for c in stacks]
    return [floor_prize + a for a in _round_exact(rest, shares, stacks)]


def chip_chop(*, stacks: Mapping[int, int], prizes: Sequence[int]) -> dict[int, int]:
    """Each player's (``stacks``: player -> chips) amount of a chip chop of ``prizes``."""
    chips = list(stacks.values())
    _check(chips, prizes)
    return dict(zip(stacks, share_by_chips(chips, prizes), strict=True))


def deal_proposal(
    *, stacks: Mapping[int, int], prizes: Sequence[int], method: str, left_to_play_for: int = 0
) -> Deal:
    """A deal of ``prizes`` (the places not yet awarded, first place first) among the
    players in ``stacks`` (player -> chips), ``left_to_play_for`` set aside out of first
    prize."""
    chips = list(stacks.values())
    _check(chips, prizes)
    if method not in ("icm", "chip_chop") or not 0 <= left_to_play_for <= prizes[0]:
        raise DealError(
            code="invalid_deal",
            message=f"method {method!r} (icm or chip_chop), {left_to_play_for} left to play "
            f"for (0 to first prize, {prizes[0]})",
        )
    dealt = sorted([prizes[0] - left_to_play_for, *prizes[1:]], reverse=True)
    if method == "icm":
        exact = icm_equities(stacks=chips, prizes=dealt)
        amounts = _round_exact(sum(dealt), exact, chips)
    else:
        amounts = share_by_chips(chips, dealt)
    return Deal(
        method="icm" if method == "icm" else "chip_chop",
        amounts=dict(zip(stacks, amounts, strict=True)),
        left_to_play_for=left_to_play_for,
    )
