"""Seven-card evaluator throughput: ours against treys, eval7, phevaluator and pokerkit.

Usage: ``python -m benchmarks.bench_evaluator [--hands 200000] [--json PATH]``.

Every contender evaluates the same seeded random 7-card hands in this one process, with
cards converted to its own representation beforehand (conversion is not timed). Per-call
figures include the Python ``for`` loop, as a caller would pay it. Each figure is the best
of five interleaved rounds. Rates use this process's CPU time, so other load on a shared
machine (which deschedules us) distorts them less than wall time would; the best wall
time is recorded in the JSON too. pokerkit is timed on a subset and scaled, as it is
orders of magnitude slower. Peers are optional: a missing one is reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from poker.engine.cards import format_card
from poker.engine.evaluator import (
    HAND_CLASSES,
    evaluate,
    evaluate7_unchecked,
    evaluate_batch,
)

SEED = 20240601
POKERKIT_HANDS = 5_000
ROUNDS = 5
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "evaluator.json"


def make_hands(count: int, seed: int = SEED) -> np.ndarray:
    """``count`` random 7-card hands (distinct cards per row) as an (N, 7) int64 array."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :7].astype(np.int64)


def _best_of(runs: int, fn: Callable[[], object]) -> tuple[float, float]:
    """Best (CPU seconds, wall seconds) over ``runs`` calls of ``fn``."""
    best_cpu = best_wall = float("inf")
    for _ in range(runs):
        cpu, wall = time.process_time(), time.perf_counter()
        fn()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall


def _per_call(fn: Callable[..., object], args: list[Any], star: bool) -> Callable[[], None]:
    if star:

        def loop() -> None:
            for a in args:
                fn(*a)
    else:

        def loop() -> None:
            for a in args:
                fn(a)

    return loop


def _contenders(tuples: list[tuple[int, ...]]) -> tuple[list[tuple[str, Any]], list[str]]:
    """(name, (callable, args, star, hands used)) for every installed peer, and the skipped."""
    found: list[tuple[str, Any]] = []
    skipped: list[str] = []
    texts = [[format_card(c) for c in h] for h in tuples]
    try:
        from phevaluator import _pheval
        from phevaluator.evaluator import evaluate_cards

        found.append(("phevaluator evaluate_cards", (evaluate_cards, tuples, True)))
        found.append(
            ("phevaluator C core _pheval.evaluate_7cards", (_pheval.evaluate_7cards, tuples, True))
        )
    except ImportError:
        skipped.append("phevaluator")
    try:
        import eval7

        cards7 = [[eval7.Card(t) for t in h] for h in texts]
        found.append(("eval7 evaluate", (eval7.evaluate, cards7, False)))
    except ImportError:
        skipped.append("eval7")
    try:
        from treys import Card as TreysCard
        from treys import Evaluator as TreysEvaluator

        treys_eval = TreysEvaluator()
        treys_hands = [
            ([TreysCard.new(t) for t in h[2:]], [TreysCard.new(t) for t in h[:2]]) for h in texts
        ]
        found.append(("treys Evaluator.evaluate", (treys_eval.evaluate, treys_hands, True)))
    except ImportError:
        skipped.append("treys")
    try:
        from pokerkit import Card as PkCard
        from pokerkit import StandardHighHand

        pk_hands = [
            (tuple(PkCard.parse("".join(h[:2]))), tuple(PkCard.parse("".join(h[2:]))))
            for h in texts[:POKERKIT_HANDS]
        ]
        found.append(
            ("pokerkit StandardHighHand.from_game", (StandardHighHand.from_game, pk_hands, True))
        )
    except ImportError:
        skipped.append("pokerkit")
    return found, skipped


def _check_against_phevaluator(tuples: list[tuple[int, ...]], ours: list[int]) -> int | None:
    """Hands where our value disagrees with phevaluator's (same card ints; lower is better
    there, so ours must equal HAND_CLASSES + 1 - theirs). None if phevaluator is missing."""
    try:
        from phevaluator import _pheval
    except ImportError:
        return None
    return sum(
        v != HAND_CLASSES + 1 - _pheval.evaluate_7cards(*h)
        for h, v in zip(tuples, ours, strict=True)
    )


def run(hands: int = 200_000, json_path: Path | None = DEFAULT_JSON) -> dict[str, Any]:
    """Time every contender on ``hands`` seeded hands, print a table, write JSON."""
    array = make_hands(hands)
    tuples = [tuple(row) for row in array.tolist()]
    evaluate_batch(array[:10])  # builds the lazy numpy table outside the timing
    found, skipped = _contenders(tuples)
    timed: list[tuple[str, Callable[[], object], int, int]] = [
        ("ours evaluate (validated, per call)", _per_call(evaluate, tuples, False), hands, 1),
        (
            "ours evaluate7_unchecked (per call)",
            _per_call(evaluate7_unchecked, tuples, True),
            hands,
            1,
        ),
        ("ours evaluate_batch (numpy)", lambda: evaluate_batch(array), hands, 3),
    ]
    timed += [(name, _per_call(fn, args, star), len(args), 1) for name, (fn, args, star) in found]

    # Rounds interleave the contenders, so a burst of load from other processes on the
    # machine hits all of them alike instead of one; each keeps its best time.
    cpu = {name: float("inf") for name, *_ in timed}
    wall = dict(cpu)
    for _ in range(ROUNDS):
        for name, fn, _count, inner in timed:
            round_cpu, round_wall = _best_of(inner, fn)
            cpu[name] = min(cpu[name], round_cpu)
            wall[name] = min(wall[name], round_wall)
    rows: dict[str, dict[str, float | int]] = {
        name: {
            "hands": count,
            "cpu_seconds": cpu[name],
            "wall_seconds": wall[name],
            "evals_per_s": count / cpu[name],
            "evals_per_wall_s": count / wall[name],
        }
        for name, _fn, count, _inner in timed
    }

    mismatches = _check_against_phevaluator(tuples, evaluate_batch(array).tolist())
    public = rows.get("phevaluator evaluate_cards", {}).get("evals_per_s")
    core = rows.get("phevaluator C core _pheval.evaluate_7cards", {}).get("evals_per_s")
    ratios: dict[str, dict[str, float | None]] = {
        name: {
            "vs_phevaluator_public": row["evals_per_s"] / public if public else None,
            "vs_phevaluator_c_core": row["evals_per_s"] / core if core else None,
        }
        for name, row in rows.items()
    }

    def ratio(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}x"

    print(f"{hands:,} random 7-card hands (seed {SEED}); best of {ROUNDS} interleaved rounds")
    print(f"{'contender':<46}{'evals/s':>14}{'vs phe API':>12}{'vs phe C':>10}")
    for name, row in sorted(rows.items(), key=lambda kv: -kv[1]["evals_per_s"]):
        note = f"  (timed on {row['hands']:,})" if row["hands"] != hands else ""
        print(
            f"{name:<46}{row['evals_per_s']:>14,.0f}"
            f"{ratio(ratios[name]['vs_phevaluator_public']):>12}"
            f"{ratio(ratios[name]['vs_phevaluator_c_core']):>10}{note}"
        )
    for name in skipped:
        print(f"{name}: not installed, skipped")
    if mismatches is not None:
        print(f"values agree with phevaluator on {hands - mismatches:,}/{hands:,} hands")

    result: dict[str, Any] = {
        "hands": hands,
        "seed": SEED,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "contenders": {name: {**row, **ratios[name]} for name, row in rows.items()},
        "skipped": skipped,
        "mismatches_vs_phevaluator": mismatches,
    }
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2))
        print(f"figures written to {json_path}")
    return result


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    run(args.hands, args.json)


if __name__ == "__main__":
    main()
