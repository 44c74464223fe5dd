"""The tournament director's balancing decision: ``balance()`` on a 1,000-table field.

Usage: ``python -m benchmarks.bench_balance [--calls 1000] [--json PATH]``.

A seeded field of 1,000 full tables of 10 seats (10,000 players; with more than 9,990
players no table can break), every table between hands, takes random busts before each
call, in three cases: **no move** (1 to 9 busts at as many tables: sizes stay within 1),
**one move** (two busts at one table: a table of 10 gives it a player) and **one break**
(one table down to 1 to 4 players and as many busts elsewhere: the players fit in 999
tables, it breaks into the tables of 9). Each call gets its own field, built outside
the timing. Figures are per call, p50 and p99, in CPU time of this thread (other
load on a shared machine distorts it less) and in wall time; ``apply()`` of the plan is
timed too (it builds and checks the new field: the director pays it only when something
moves).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

from tournaments.rules.balance import FieldState, Plan, TableState, apply, balance

SEED = 20261129
TABLES = 1_000
SEATS = 10
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "balance.json"


def base_field(rng: Random) -> list[TableState]:
    """1,000 full tables at random seats, each with a button."""
    return [
        TableState(
            number=number,
            seats={s: number * SEATS + s for s in range(1, SEATS + 1)},
            button=rng.randint(1, SEATS),
        )
        for number in range(1, TABLES + 1)
    ]


def busting(tables: list[TableState], busts: dict[int, int], rng: Random) -> list[TableState]:
    """``tables`` after ``busts[i]`` random busts at table index ``i``."""
    changed = list(tables)
    for i, count in busts.items():
        t = tables[i]
        out = set(rng.sample(sorted(t.seats), count))
        seats = {s: p for s, p in t.seats.items() if s not in out}
        changed[i] = TableState(number=t.number, seats=seats, button=t.button)
    return changed


def no_move(tables: list[TableState], rng: Random) -> list[TableState]:
    """1 to 9 tables lose a player each."""
    return busting(tables, dict.fromkeys(rng.sample(range(TABLES), rng.randint(1, 9)), 1), rng)


def one_move(tables: list[TableState], rng: Random) -> list[TableState]:
    """A table loses two players: 10 against 8."""
    return busting(tables, {rng.randrange(TABLES): 2}, rng)


def one_break(tables: list[TableState], rng: Random) -> list[TableState]:
    """A table is down to 1-4 players, as many others lose one: 9,990 players."""
    left = rng.randint(1, 4)
    first, *others = rng.sample(range(TABLES), left + 1)
    return busting(tables, {first: SEATS - left} | dict.fromkeys(others, 1), rng)


def percentiles(values: list[int]) -> dict[str, float]:
    """p50 and p99 of ``values`` (nanoseconds), in microseconds."""
    ordered = sorted(values)
    return {
        "p50_us": ordered[len(ordered) // 2] / 1000,
        "p99_us": ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)] / 1000,
        "max_us": ordered[-1] / 1000,
    }


def measure(
    case: Callable[[list[TableState], Random], list[TableState]], calls: int, rng: Random
) -> dict[str, Any]:
    """Times ``balance`` and ``apply`` on ``calls`` fields made by ``case``."""
    base = base_field(rng)
    cpu: list[int] = []
    wall: list[int] = []
    apply_cpu: list[int] = []
    moves = breaks = 0
    for _ in range(calls):
        field = FieldState(tables=tuple(case(base, rng)), seats_per_table=SEATS)
        c, w = time.thread_time_ns(), time.perf_counter_ns()
        plan: Plan = balance(field, rng)
        wall.append(time.perf_counter_ns() - w)
        cpu.append(time.thread_time_ns() - c)
        c = time.thread_time_ns()
        apply(field, plan)
        apply_cpu.append(time.thread_time_ns() - c)
        moves += len(plan.moves)
        breaks += len(plan.broken)
    return {
        "calls": calls,
        "moves_per_call": moves / calls,
        "breaks_per_call": breaks / calls,
        "balance_cpu": percentiles(cpu),
        "balance_wall": percentiles(wall),
        "apply_cpu": percentiles(apply_cpu),
    }


CASES = {"no move": no_move, "one move": one_move, "one break": one_break}


def run(calls: int = 1_000, json_path: Path | None = DEFAULT_JSON) -> dict[str, Any]:
    """Time every case, print a table, write JSON."""
    rng = Random(SEED)
    rows = {name: measure(case, calls, rng) for name, case in CASES.items()}
    print(
        f"balance() on {TABLES:,} tables of {SEATS} seats (10,000 players less the busts), {calls:,} calls a case"
    )
    print(
        f"{'case':<11}{'moves':>7}{'breaks':>8}{'cpu p50':>10}{'cpu p99':>10}"
        f"{'wall p50':>10}{'wall p99':>10}{'apply p50':>11}{'apply p99':>11}  (microseconds)"
    )
    for name, row in rows.items():
        print(
            f"{name:<11}{row['moves_per_call']:>7.2f}{row['breaks_per_call']:>8.2f}"
            f"{row['balance_cpu']['p50_us']:>10.0f}{row['balance_cpu']['p99_us']:>10.0f}"
            f"{row['balance_wall']['p50_us']:>10.0f}{row['balance_wall']['p99_us']:>10.0f}"
            f"{row['apply_cpu']['p50_us']:>11.0f}{row['apply_cpu']['p99_us']:>11.0f}"
        )
    result: dict[str, Any] = {
        "tables": TABLES,
        "seats_per_table": SEATS,
        "seed": SEED,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "cases": rows,
    }
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2) + "\n")
        print(f"figures written to {json_path}")
    return result


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    run(args.calls, args.json)


if __name__ == "__main__":
    main()
