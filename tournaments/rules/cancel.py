"""The cancellation policy (staff, with a reason; or automatic when too few registered).

- **Before the money** (more players left than places paid): every entry is refunded
  whole -- buy-in, fee, rebuys and add-ons -- to every player who entered, busted or not,
  summed per player over their entries (re-entries included).
- **In the money**: each remaining player gets the lowest prize not yet awarded, and the
  rest of the unawarded prizes is shared by chip count; amounts are rounded down and the
  units left go one each to the largest fractions rounded away, ties to the larger stack,
  then to the player listed first (the chip chop of :mod:`tournaments.rules.icm`). The
  amounts sum exactly to the unawarded prizes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from tournaments.rules.errors import DealError
from tournaments.rules.icm import share_by_chips


@dataclass(frozen=True, kw_only=True)
class Entry:
    """What a player paid for one entry (minor units)."""

    player: int
    buy_in: int
    fee: int
    rebuys: int
    add_ons: int


@dataclass(frozen=True, kw_only=True)
class Settlement:
    """What a cancellation pays: ``refunds`` before the money, ``prizes`` in it
    (player -> minor units)."""

    in_the_money: bool
    refunds: dict[int, int] = field(hash=False)
    prizes: dict[int, int] = field(hash=False)


def cancel_settlement(
    *, entries: Sequence[Entry], stacks: Mapping[int, int], prizes: Sequence[int]
) -> Settlement:
    """The settlement of a cancelled tournament: ``entries`` all entries paid, ``stacks``
    the remaining players' chips, ``prizes`` all prizes by place (first place first)."""
    chips = list(stacks.values())
    if not chips or min(chips) <= 0 or not prizes or any(a < b for a, b in pairwise(prizes)):
        raise DealError(
            code="invalid_cancellation",
            message=f"{len(chips)} players left with chips {chips[:10]}, prizes "
            f"{list(prizes[:10])}: players with chips, and prizes falling from first place",
        )
    if len(chips) > len(prizes):
        refunds: dict[int, int] = {}
        for e in entries:
            refunds[e.player] = refunds.get(e.player, 0) + e.buy_in + e.fee + e.rebuys + e.add_ons
        return Settlement(in_the_money=False, refunds=refunds, prizes={})
    shares = share_by_chips(chips, prizes[: len(chips)])
    return Settlement(in_the_money=True, refunds={}, prizes=dict(zip(stacks, shares, strict=True)))
