"""Lookup tables behind :mod:`poker.engine.evaluator`, built once at import.

Every 5-card hand falls into one of 7,462 equivalence classes (1,404 with a short deck's
36 cards); each class gets a *value*, a dense rank where higher is better. The
tables map a hand's cheap additive signature to that value:

* Non-flush hands depend only on the multiset of ranks. Each rank has an additive key
  (:data:`RANK_KEYS`) such that the sum over any multiset of ``n`` ranks (each rank at most
  four times) is unique among multisets of the same size ``n``. So ``nonflush[n]`` maps that
  sum straight to the value of the best five-card hand inside the ``n`` ranks.
* Flush hands depend only on the set of ranks in the flush suit, a 13-bit mask; ``flush``
  is indexed by that mask (5, 6 or 7 bits set).

Building everything takes about 0.1 s (numpy does the 6- and 7-card tables), so nothing
is cached on disk: the tables are a deterministic function of this file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

import numpy as np
import numpy.typing as npt

#: Additive rank keys from Kenneth Shackleton's SKPokerEval (deuce to ace). Sums over
#: multisets of 5, 6 or 7 ranks (at most four of a rank) are unique per size and stay
#: below 2**23; ``tests/poker/engine/test_evaluator.py`` re-checks this.
# A table, one row per line: the formatter leaves it as written (fmt: skip).
RANK_KEYS: tuple[int, ...] = (
    0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181,
)  # fmt: skip
_RANK_KEYS_NP = np.array(RANK_KEYS, dtype=np.int64)

#: Categories from weakest to strongest in standard poker.
CATEGORIES: tuple[str, ...] = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)
#: Short deck: a flush is harder to make than a full house with 36 cards, so it ranks
#: higher; everything else keeps the standard order (trips still beat a straight).
SHORT_DECK_CATEGORIES: tuple[str, ...] = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "full_house",
    "flush",
    "four_of_a_kind",
    "straight_flush",
)

_SHAPES = {
    (4, 1): "four_of_a_kind",
    (3, 2): "full_house",
    (3, 1, 1): "three_of_a_kind",
    (2, 2, 1): "two_pair",
    (2, 1, 1, 1): "pair",
    (1, 1, 1, 1, 1): "high_card",
}


@dataclass(frozen=True, slots=True)
class Tables:
    """The tables of one variant (standard or short deck)."""

    #: ``nonflush[n][sum of RANK_KEYS]`` is the value of ``n`` cards without a flush
    #: (index 5, 6, 7; the other entries are empty).
    nonflush: tuple[dict[int, int], ...]
    #: ``flush[mask]``: value of the best flush in a 13-bit rank mask (0 if < 5 bits).
    flush: tuple[int, ...]
    #: ``category_of[value]``: category name of a value (index 0 is unused).
    category_of: tuple[str, ...]


def _straight_high(distinct: frozenset[int], low_straight: frozenset[int]) -> int | None:
    """The top rank of a straight made by five distinct ranks, else None."""
    if max(distinct) - min(distinct) == 4:
        return max(distinct)
    if distinct == low_straight:
        # The ace plays low: the straight is as high as its second-highest rank.
        return sorted(distinct)[-2]
    return None


def _classify(
    ranks: tuple[int, ...], suited: bool, low_straight: frozenset[int]
) -> tuple[str, tuple[int, ...]]:
    """Category and tie-break ranks of a five-card hand given as its ranks."""
    counts = {r: ranks.count(r) for r in set(ranks)}
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    order = tuple(r for r, _ in groups)
    high = _straight_high(frozenset(counts), low_straight) if len(counts) == 5 else None
    if suited:
        return ("straight_flush", (high,)) if high is not None else ("flush", order)
    if high is not None:
        return "straight", (high,)
    return _SHAPES[tuple(c for _, c in groups)], order


def _rank_multisets(ranks: Iterable[int], size: int) -> Iterable[tuple[int, ...]]:
    """Sorted rank tuples of ``size`` cards with at most four cards of a rank."""
    for combo in combinations_with_replacement(ranks, size):
        if not any(combo[i] == combo[i + 4] for i in range(size - 4)):
            yield combo


def _grow(
    counts: npt.NDArray[np.int64], values: npt.NDArray[np.int64], ranks: range
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """From every rank multiset of size ``n`` (rows of rank ``counts``) and its value, the
    multisets of size ``n + 1``, their rank-key sums and values.

    The best five cards among ``n + 1`` are the best among some ``n`` of them, so a
    bigger multiset's value is the largest value of the multisets it extends by one card.
    """
    allowed = np.array(ranks)
    parent = np.repeat(np.arange(len(counts)), len(allowed))
    added = np.tile(allowed, len(counts))
    keep = counts[parent, added] < 4
    parent, added = parent[keep], added[keep]
    sums = counts[parent] @ _RANK_KEYS_NP + _RANK_KEYS_NP[added]
    unique_sums, group = np.unique(sums, return_inverse=True)
    grown_values = np.zeros(len(unique_sums), dtype=np.int64)
    np.maximum.at(grown_values, group, values[parent])
    # Any one extension per new multiset gives its counts.
    first = np.empty(len(unique_sums), dtype=np.int64)
    first[group] = np.arange(len(group))
    grown = counts[parent[first]]
    grown[np.arange(len(first)), added[first]] += 1
    return grown, unique_sums, grown_values


def build(ranks: range, order: tuple[str, ...], low_straight: frozenset[int]) -> Tables:
    """Build the tables for a deck made of ``ranks`` with category strength ``order``."""
    strength = {name: i for i, name in enumerate(order)}
    classes: list[tuple[int, tuple[int, ...], str, bool, tuple[int, ...]]] = []
    for combo in _rank_multisets(ranks, 5):
        name, tie = _classify(combo, False, low_straight)
        classes.append((strength[name], tie, name, False, combo))
    for combo in combinations(ranks, 5):
        name, tie = _classify(combo, True, low_straight)
        classes.append((strength[name], tie, name, True, combo))
    classes.sort()

    category_of = [""]
    flush = [0] * 8192
    counts: list[list[int]] = []
    values: list[int] = []
    for value, (_, _, name, suited, combo) in enumerate(classes, start=1):
        category_of.append(name)
        if suited:
            flush[sum(1 << r for r in combo)] = value
        else:
            counts.append([combo.count(r) for r in range(13)])
            values.append(value)

    count_rows = np.array(counts, dtype=np.int64)
    value_rows = np.array(values, dtype=np.int64)
    nonflush: list[dict[int, int]] = [{}, {}, {}, {}, {}]
    nonflush.append(dict(zip((count_rows @ _RANK_KEYS_NP).tolist(), values, strict=True)))
    for _ in (6, 7):
        count_rows, sums, value_rows = _grow(count_rows, value_rows, ranks)
        nonflush.append(dict(zip(sums.tolist(), value_rows.tolist(), strict=True)))
    for size in (6, 7):
        for combo in combinations(ranks, size):
            mask = sum(1 << r for r in combo)
            flush[mask] = max(flush[mask & ~(1 << r)] for r in combo)
    return Tables(tuple(nonflush), tuple(flush), tuple(category_of))


#: Standard 52-card poker; the wheel A-2-3-4-5 is the lowest straight.
STANDARD = build(range(13), CATEGORIES, frozenset({12, 0, 1, 2, 3}))
#: Short deck (6 to A); A-6-7-8-9 is the lowest straight and there is no wheel.
SHORT_DECK = build(range(4, 13), SHORT_DECK_CATEGORIES, frozenset({12, 4, 5, 6, 7}))
