"""Equity with every card known: what each player's hand was worth at a decision.

The analysis judges decisions, not results, so it needs each player's share of the pot at
the moment they acted, knowing everyone's hole cards and the board so far (the cards still
to come unknown). One :func:`street_values` call gives the hand values of every dealt
player over the possible run-outs of a street, through the evaluator's batch path; the
pairwise and multiway equities are then cheap reductions of that matrix.

Run-outs: the river is exact (one board), the turn enumerates every river card, the flop
and preflop draw ``samples`` boards from a generator seeded by the hand id, so the same
hand always gives the same figures (the analysis is idempotent) and a few dozen boards are
enough: the detectors count decisions by thresholds, not by the exact equity.

Hold'em only (NT, FT: two hole cards, the standard ranking). Omaha and short deck have
other evaluators; their hands feed the chip flow but no decision features (see
``fraud.features``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from poker.engine.evaluator import evaluate_batch

HOLDEM = frozenset({"NT", "FT"})
#: Boards drawn when the run-outs are too many to enumerate (preflop and flop).
SAMPLES = 48
#: Holdings drawn to rank a hand on a board (a percentile within about 3%), at a stride
#: prime to the number of holdings (1,176 after the flop, 1,128 after the turn, 1,081 after
#: the river) so a run of them spreads over the whole list.
FIELD = 256
_STRIDE = 397
#: Boards drawn per class for the preflop strength table.
_TABLE_SAMPLES = 600

Values = npt.NDArray[np.int32]


def street_values(
    holes: Sequence[Sequence[int]], board: Sequence[int], *, seed: int, samples: int = SAMPLES
) -> Values:
    """Hand values, shape (boards, players): row k is every player's value on run-out k.

    ``holes[i]`` is player i's two cards (all must be known), ``board`` the 0-5 community
    cards dealt so far. A higher value is a better hand.
    """
    used = {c for h in holes for c in h} | set(board)
    rest = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    need = 5 - len(board)
    if need == 0:
        boards = np.array([board], dtype=np.int64)
    elif need == 1:
        boards = np.column_stack([np.tile(np.array(board, dtype=np.int64), (len(rest), 1)), rest])
    else:
        rng = np.random.default_rng(seed)
        draws = np.argsort(rng.random((samples, len(rest))), axis=1)[:, :need]
        fixed = np.tile(np.array(board, dtype=np.int64), (samples, 1))
        boards = np.column_stack([fixed, rest[draws]])
    k, n = len(boards), len(holes)
    hole = np.array(holes, dtype=np.int64)  # (n, 2)
    hands = np.empty((k, n, 7), dtype=np.int64)
    hands[:, :, :2] = hole[None, :, :]
    hands[:, :, 2:] = boards[:, None, :]
    return evaluate_batch(hands.reshape(k * n, 7)).reshape(k, n)


def heads_up(values: Values, a: int, b: int) -> float:
    """Player a's equity against player b alone (ties count half)."""
    va, vb = values[:, a], values[:, b]
    return float(np.mean(va > vb) + 0.5 * np.mean(va == vb))


def shares(values: Values, players: Sequence[int]) -> dict[int, float]:
    """Each of ``players``' expected share of a pot they alone contest (sums to 1)."""
    cols = values[:, list(players)]
    best = cols == cols.max(axis=1, keepdims=True)
    split = best / best.sum(axis=1, keepdims=True)
    return dict(zip(players, split.mean(axis=0).tolist(), strict=True))


def percentiles(
    holes: Sequence[Sequence[int]], board: Sequence[int], *, seed: int, samples: int = FIELD
) -> list[float]:
    """How each player's hand ranks among the two cards one could hold on this board (0
    the worst, 1 the best): the strength a player knows from their own cards alone.

    Preflop, by starting-hand class (:func:`chance_stronger`); after the flop, by the hand
    made so far against ``samples`` two-card holdings not on the board, taken at a stride
    through all of them from a start set by ``seed`` (ties count half).
    """
    if not board:
        return [1.0 - chance_stronger(h) for h in holes]
    n = len(board)
    used = set(board)
    rest = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    i, j = _pairs(len(rest))
    pick = (seed * 7919 + np.arange(samples) * _STRIDE) % len(i)
    hands = np.empty((samples + len(holes), 2 + n), dtype=np.int64)
    hands[:samples, 0], hands[:samples, 1] = rest[i[pick]], rest[j[pick]]
    hands[samples:, :2] = holes
    hands[:, 2:] = board
    values = evaluate_batch(hands)
    field = np.sort(values[:samples])
    mine = values[samples:]
    below = np.searchsorted(field, mine, side="left")
    equal = np.searchsorted(field, mine, side="right") - below
    return ((below + 0.5 * equal) / samples).tolist()  # type: ignore[no-any-return]  # numpy's tolist returns Any


@lru_cache(maxsize=8)
def _pairs(n: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Every two-card combination of ``n`` cards, as two index arrays."""
    i, j = np.triu_indices(n, k=1)
    return i, j


def preflop_strength(cards: Sequence[int]) -> float:
    """Two hole cards' equity against one random hand (from a table of the 169 classes)."""
    return _strength_table()[_class_of(cards[0], cards[1])]


def chance_stronger(cards: Sequence[int]) -> float:
    """The chance that a random other starting hand is stronger than ``cards`` (by
    :func:`preflop_strength`), among those not exactly as strong."""
    return _stronger_table()[_class_of(cards[0], cards[1])]


def _class_of(a: int, b: int) -> int:
    """Index of the 169 starting-hand classes: (high rank, low rank, suited)."""
    ra, rb = a >> 2, b >> 2
    hi, lo = max(ra, rb), min(ra, rb)
    suited = (a & 3) == (b & 3)
    return (hi * 13 + lo) * 2 + int(suited)


@lru_cache(maxsize=1)
def _strength_table() -> dict[int, float]:
    """Equity of each class against a random hand over random boards (fixed seed, so the
    table is the same in every process; about a tenth of a second to build)."""
    rng = np.random.default_rng(20130714)
    reps: list[tuple[int, int, int]] = []
    for hi in range(13):
        for lo in range(hi + 1):
            if hi == lo:
                reps.append((_class_of(hi * 4, lo * 4 + 1), hi * 4, lo * 4 + 1))
            else:
                reps.append((_class_of(hi * 4, lo * 4), hi * 4, lo * 4))  # suited
                reps.append((_class_of(hi * 4, lo * 4 + 1), hi * 4, lo * 4 + 1))  # offsuit
    n = _TABLE_SAMPLES
    mine = np.empty((len(reps) * n, 7), dtype=np.int64)
    theirs = np.empty((len(reps) * n, 7), dtype=np.int64)
    for r, (_, a, b) in enumerate(reps):
        rest = np.array([c for c in range(52) if c not in (a, b)], dtype=np.int64)
        draw = rest[np.argsort(rng.random((n, len(rest))), axis=1)[:, :7]]
        rows = slice(r * n, (r + 1) * n)
        mine[rows, 0], mine[rows, 1], mine[rows, 2:] = a, b, draw[:, 2:]
        theirs[rows, :2], theirs[rows, 2:] = draw[:, :2], draw[:, 2:]
    va = evaluate_batch(mine).reshape(len(reps), n)
    vb = evaluate_batch(theirs).reshape(len(reps), n)
    eq = np.mean(va > vb, axis=1) + 0.5 * np.mean(va == vb, axis=1)
    return {cls: float(e) for (cls, _, _), e in zip(reps, eq, strict=True)}


@lru_cache(maxsize=1)
def _stronger_table() -> dict[int, float]:
    """Per class: the share of the 1,326 starting hands (by their combinations: 6 per
    pair, 4 suited, 12 offsuit) stronger than it, among those of another strength."""
    table = _strength_table()
    combos = {
        cls: 6 if (cls // 2) // 13 == (cls // 2) % 13 else (4 if cls % 2 else 12) for cls in table
    }
    out = {}
    for cls, mine in table.items():
        stronger = sum(c for k, c in combos.items() if table[k] > mine)
        weaker = sum(c for k, c in combos.items() if table[k] < mine)
        out[cls] = stronger / (stronger + weaker)
    return out
