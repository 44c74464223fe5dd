"""Prize pool, payouts by place, and places from busts. Amounts are integers in minor units.

**Prize pool** = max(guarantee, buy-ins + rebuys + add-ons - bounties): fees go to the
house, bounties are paid apart to whoever busts their player; when the guarantee is
larger, the house pays the difference (the overlay).

**Payouts** by place come from the tournament's structure (whole percentages by place,
falling, summing to 100) or, without them, from the room's default table
(``data/payouts.json``: shares in millionths of the pool by place, per field size). About
15% of the field is paid; the shares are ``1.5 / top-of-bracket`` each (so the last paid
place wins about twice the buy-in) plus the rest by ``1 / place``. Fields above 10,000 pay
as 10,000.

============  ===========  ===========  ==============
entries       places paid  first place  last place
============  ===========  ===========  ==============
2-4           1            100%         -
5-7           2            65%          35%
8-20          3            50%          20%
21-27         4            42.9%        14.9%
28-40         6            35.4%        9.02%
41-60         9            29.9%        5.54%
61-100        15           24.9%        3.06%
101-150       22           22.1%        1.96%
151-200       30           20.2%        1.40%
201-300       45           18.1%        0.892%
301-500       75           16.1%        0.511%
501-700       105          15.0%        0.355%
701-1000      150          14.0%        0.242%
1001-1500     225          13.0%        0.157%
1501-2000     300          12.4%        0.116%
2001-3000     450          11.7%        0.0757%
3001-5000     750          10.8%        0.0443%
5001-7500     1125         10.3%        0.0290%
7501-         1500         9.91%        0.0215%
============  ===========  ===========  ==============

Each place gets ``pool * share // total``; the rounding remainder goes to the highest
place. When fewer players entered than the places a structure pays, only as many places
are paid and their shares are scaled up to the whole pool.

**Places**: busting players get places from the bottom up. Of several busting in the same
hand (in hand-for-hand play: the same hand-for-hand hand, at any table), the larger
starting stack of that hand places higher; equal starting stacks share their places: the
prizes of those places are summed and split evenly, and the odd minor units go one each
to the sharers in the order the director lists the busts (seat order from the left of the
button, as the odd chip of a split pot).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import groupby, pairwise

from tournaments.rules.errors import PayoutError
from tournaments.rules.structure import DATA


@dataclass(frozen=True, kw_only=True)
class PrizePool:
    """The pool to pay out, and the overlay the house adds to reach the guarantee."""

    amount: int
    overlay: int


@dataclass(frozen=True, kw_only=True)
class Bust:
    """A player out of chips in a hand, with the stack they started that hand with."""

    player: int
    starting_stack: int


@dataclass(frozen=True, kw_only=True)
class Placement:
    """A busted player's places: ``first_place`` to ``last_place`` (the same when alone;
    a range when they share with others busting with equal stacks)."""

    player: int
    first_place: int
    last_place: int


def prize_pool(
    *, guarantee: int, buy_ins: int, rebuys: int, add_ons: int, bounties: int
) -> PrizePool:
    """The prize pool from the money collected (each argument a total in minor units)."""
    collected = buy_ins + rebuys + add_ons
    if min(guarantee, buy_ins, rebuys, add_ons, bounties) < 0 or bounties > collected:
        raise PayoutError(
            code="invalid_prize_pool",
            message=f"guarantee {guarantee}, buy-ins {buy_ins}, rebuys {rebuys}, add-ons "
            f"{add_ons}, bounties {bounties}: amounts are >= 0 and bounties within the money",
        )
    pool = max(guarantee, collected - bounties)
    return PrizePool(amount=pool, overlay=pool - (collected - bounties))


@cache
def _default_table() -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    data = json.loads((DATA / "payouts.json").read_text())
    tops = tuple(b["max_entries"] for b in data["brackets"])
    return tops, tuple(tuple(b["shares"]) for b in data["brackets"])


def default_shares(entries: int) -> tuple[int, ...]:
    """The room's default shares by place (millionths of the pool) for a field of ``entries``."""
    tops, shares = _default_table()
    return shares[min(bisect_left(tops, entries), len(tops) - 1)]


def _check_percents(percents: Sequence[int]) -> None:
    whole = all(isinstance(p, int) and not isinstance(p, bool) for p in percents)
    if not (
        percents
        and whole
        and sum(percents) == 100
        and min(percents) > 0
        and all(a >= b for a, b in pairwise(percents))
    ):
        raise PayoutError(
            code="invalid_payouts",
            message=f"payouts {list(percents)}: whole positive percentages by place, never "
            "rising, summing to 100",
        )


def prize_amounts(*, pool: int, entries: int, percents: Sequence[int] | None) -> tuple[int, ...]:
    """The prize of each paid place (first place first), summing exactly to ``pool``."""
    if percents is not None:
        _check_percents(percents)
    shares = default_shares(entries) if percents is None else tuple(percents)
    shares = shares[: max(1, entries)]
    total = sum(shares)
    amounts = [pool * share // total for share in shares]
    amounts[0] += pool - sum(amounts)
    return tuple(amounts)


def places_from_busts(*, players_left: int, busts: Sequence[Bust]) -> tuple[Placement, ...]:
    """The places of ``busts`` (one hand's), ``players_left`` being the players in before it.

    Lowest place first; sharers in the order given."""
    players = [b.player for b in busts]
    if (
        not 0 < len(busts) < players_left
        or len(set(players)) != len(players)
        or any(b.starting_stack <= 0 for b in busts)
    ):
        raise PayoutError(
            code="invalid_busts",
            message=f"busts {players} of {players_left} players: one or more distinct players "
            "who had chips, and somebody left",
        )
    placements: list[Placement] = []
    place = players_left
    ranked = sorted(busts, key=lambda b: b.starting_stack)  # stable: sharers keep their order
    for _, group in groupby(ranked, key=lambda b: b.starting_stack):
        sharers = list(group)
        first = place - len(sharers) + 1
        placements += [
            Placement(player=b.player, first_place=first, last_place=place) for b in sharers
        ]
        place = first - 1
    return tuple(placements)


def prizes_for_placements(
    *, prizes: Sequence[int], placements: Sequence[Placement]
) -> dict[int, int]:
    """What each placed player wins: ``prizes[p - 1]`` for place ``p`` (0 outside the
    money); sharers split their places' prizes, odd units one each in the order given."""
    won: dict[int, int] = {}
    for (first, last), group in groupby(placements, key=lambda p: (p.first_place, p.last_place)):
        sharers = [p.player for p in group]
        total = sum(prizes[place - 1] for place in range(first, last + 1) if place <= len(prizes))
        each, odd = divmod(total, len(sharers))
        won |= {player: each + (i < odd) for i, player in enumerate(sharers)}
    return won
