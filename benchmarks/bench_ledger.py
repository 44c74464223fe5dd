"""Ledger throughput: transfers/s and p50/p99 latency through ``ledger_post_transfers``.

Runs against a throwaway PostgreSQL database (``bench_ledger``, created and dropped on
the server of ``DATABASE_URL``; dev data is never touched), migrated from scratch.
8 concurrent workers are separate PROCESSES, each with its own connection -- the way
production runs several worker processes; threads would mostly measure the GIL.

Scenarios (each ~``--seconds`` long after a short warm-up):
  a) 1,000 funded accounts, one transfer per call between a random pair;
  b) 10 hot accounts, one transfer per call between a random pair of them;
  c) 1,000 accounts, 10 linked transfers per posting call.
The audit (``manage.py ledger_audit``) runs afterwards and must be clean.

Usage: python -m benchmarks.bench_ledger [--seconds N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._support import (
    bench_env,
    django_setup,
    drop_database,
    manage,
    recreate_database,
    server_url,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "ledger.json"
BENCH_DB = "bench_ledger"
WORKERS = 8
TARGETS = {"a_random_pairs": 2200.0, "b_hot_accounts": 1500.0}


def _setup_accounts(env: dict[str, str], prefix: str, count: int) -> list[int]:
    """Opens ``count`` accounts funded with 10^12 each; returns their ids."""
    django_setup(env)
    import uuid

    from ledger.posting import TransferRequest
    from ledger.services import ledger_account_open, ledger_post_transfers

    issuer = ledger_account_open(
        kind="bonus", owner_ref=f"bench:{prefix}:issuer", currency="EUR", must_not_overdraw=False
    )
    ids = []
    for i in range(count):
        ids.append(
            ledger_account_open(
                kind="player_cash", owner_ref=f"bench:{prefix}:{i}", currency="EUR"
            ).pk
        )
    for start in range(0, count, 500):
        ledger_post_transfers(
            transfers=[
                TransferRequest(
                    id=uuid.uuid4(),
                    debit_account_id=issuer.pk,
                    credit_account_id=pk,
                    amount=10**12,
                    currency="EUR",
                    code="bench_funding",
                )
                for pk in ids[start : start + 500]
            ]
        )
    return ids


def _analyze(db_url: str) -> None:
    """Fresh tables have no planner statistics; a running ledger always has them (autovacuum
    keeps them current). Measure the steady state, not the first minute of a new database."""
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("ANALYZE")


def _setup_entry(env: dict[str, str], prefix: str, count: int, out: Any) -> None:
    out.put(_setup_accounts(env, prefix, count))


def _worker(
    env: dict[str, str],
    ids: list[int],
    legs: int,
    seed: int,
    ready: Any,
    go: Any,
    warmup: float,
    seconds: float,
    out: Any,
) -> None:
    django_setup(env)
    import random
    import uuid

    from ledger.posting import TransferRequest
    from ledger.services import ledger_post_transfers

    rng = random.Random(seed)
    latencies: list[float] = []
    errors = 0
    first_error = ""
    calls = 0
    from django.db import connection

    connection.ensure_connection()
    ready.put(seed)
    go.wait()
    measure_from = time.time() + warmup
    stop_at = measure_from + seconds
    while True:
        now = time.time()
        if now >= stop_at:
            break
        batch = []
        for _ in range(legs):
            debit, credit = rng.sample(ids, 2)
            batch.append(
                TransferRequest(
                    id=uuid.uuid4(),
                    debit_account_id=debit,
                    credit_account_id=credit,
                    amount=rng.randint(1, 100),
                    currency="EUR",
                    code="bench",
                )
            )
        t0 = time.perf_counter()
        try:
            ledger_post_transfers(transfers=batch)
        except Exception as exc:
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"
            continue
        elapsed = time.perf_counter() - t0
        if now >= measure_from:
            latencies.append(elapsed)
            calls += 1
    out.put({"calls": calls, "latencies": latencies, "errors": errors, "error": first_error})


def _scenario(
    env: dict[str, str], ids: list[int], legs: int, seconds: float, warmup: float = 1.0
) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    out, ready, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = [
        ctx.Process(target=_worker, args=(env, ids, legs, i, ready, go, warmup, seconds, out))
        for i in range(WORKERS)
    ]
    for p in procs:
        p.start()
    for _ in procs:  # every interpreter has imported Django and connected
        ready.get(timeout=300)
    go.set()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    latencies = sorted(x for r in results for x in r["latencies"])
    calls = sum(r["calls"] for r in results)
    p99_index = max(0, int(len(latencies) * 0.99) - 1)
    return {
        "accounts": len(ids),
        "transfers_per_call": legs,
        "workers": WORKERS,
        "seconds": seconds,
        "calls": calls,
        "transfers": calls * legs,
        "transfers_per_s": round(calls * legs / seconds, 1),
        "calls_per_s": round(calls / seconds, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2) if latencies else None,
        "p99_ms": round(latencies[p99_index] * 1000, 2) if latencies else None,
        "errors": sum(r["errors"] for r in results),
        "first_error": next((r["error"] for r in results if r["error"]), ""),
    }


_BASELINE_SETUP = """
DROP TABLE IF EXISTS bench_transfer; DROP TABLE IF EXISTS bench_account;
CREATE TABLE bench_account (id bigint PRIMARY KEY, balance bigint NOT NULL);
CREATE TABLE bench_transfer (id uuid PRIMARY KEY, debit bigint NOT NULL, credit bigint NOT NULL,
                             amount bigint NOT NULL CHECK (amount > 0));
INSERT INTO bench_account SELECT g, 1000000000000 FROM generate_series(1, 1000) g;
"""


def _baseline(db_url: str, accounts: int, legs: int, seconds: float) -> dict[str, Any]:
    """The bare minimum for comparison: raw psycopg 3, 8 threads, one transaction per call
    locking the rows in id order, updating them and inserting the transfers."""
    import random
    import threading
    import uuid

    import psycopg

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(_BASELINE_SETUP)
    stop = threading.Event()
    latencies: list[list[float]] = [[] for _ in range(WORKERS)]

    def worker(index: int) -> None:
        rng = random.Random(index)
        with psycopg.connect(db_url) as conn:
            while not stop.is_set():
                pairs = [rng.sample(range(1, accounts + 1), 2) for _ in range(legs)]
                ids = sorted({x for pair in pairs for x in pair})
                t0 = time.perf_counter()
                with conn.transaction():
                    conn.execute(
                        "SELECT id FROM bench_account WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
                        [ids],
                    ).fetchall()
                    for debit, credit in pairs:
                        conn.execute(
                            "UPDATE bench_account SET balance = balance + CASE WHEN id = %s "
                            "THEN -1 ELSE 1 END WHERE id IN (%s, %s)",
                            [debit, debit, credit],
                        )
                    conn.execute(
                        "INSERT INTO bench_transfer SELECT * FROM unnest("
                        "%s::uuid[], %s::bigint[], %s::bigint[], %s::bigint[])",
                        [
                            [uuid.uuid4() for _ in pairs],
                            [p[0] for p in pairs],
                            [p[1] for p in pairs],
                            [1] * legs,
                        ],
                    )
                latencies[index].append(time.perf_counter() - t0)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    for series in latencies:
        series.clear()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    flat = sorted(x for series in latencies for x in series)
    return {
        "accounts": accounts,
        "transfers_per_call": legs,
        "transfers_per_s": round(len(flat) * legs / seconds, 1),
        "p50_ms": round(statistics.median(flat) * 1000, 2),
        "p99_ms": round(flat[max(0, int(len(flat) * 0.99) - 1)] * 1000, 2),
    }


def run(seconds: float = 10.0, json_path: Path | str | None = DEFAULT_JSON) -> dict[str, Any]:
    """Runs the three scenarios and the audit; prints a table; writes JSON."""
    server = server_url()
    db_url = recreate_database(server, BENCH_DB)
    env = bench_env(db_url)
    try:
        migrate = manage(env, "migrate", "--noinput")
        if migrate.returncode != 0:
            raise SystemExit(f"migrate failed:\n{migrate.stderr}")
        ctx = mp.get_context("spawn")
        results: dict[str, Any] = {}
        plan = [
            ("a_random_pairs", "many", 1000, 1),
            ("b_hot_accounts", "hot", 10, 1),
            ("c_ten_per_call", "many", 1000, 10),
        ]
        ids_by_prefix: dict[str, list[int]] = {}
        for name, prefix, count, legs in plan:
            if prefix not in ids_by_prefix:
                out = ctx.Queue()
                setup = ctx.Process(target=_setup_entry, args=(env, prefix, count, out))
                setup.start()
                ids_by_prefix[prefix] = out.get(timeout=300)
                setup.join()
                _analyze(db_url)
            print(f"  running {name} ({count} accounts, {legs}/call, {WORKERS} processes)...")
            results[name] = _scenario(env, ids_by_prefix[prefix], legs, seconds)
        audit = manage(env, "ledger_audit")
        baseline = {
            "a_random_pairs": _baseline(db_url, 1000, 1, seconds),
            "b_hot_accounts": _baseline(db_url, 10, 1, seconds),
            "c_ten_per_call": _baseline(db_url, 1000, 10, seconds),
        }
        summary: dict[str, Any] = {
            "benchmark": "ledger",
            "workers": f"{WORKERS} processes (multiprocessing, one DB connection each)",
            "database": "PostgreSQL, default durable commits (synchronous_commit on)",
            "cpus": os.cpu_count(),
            "scenarios": results,
            "baseline_raw_sql_8_threads_same_run": baseline,
            "ratio_to_baseline": {
                name: round(results[name]["transfers_per_s"] / max(1.0, b["transfers_per_s"]), 2)
                for name, b in baseline.items()
            },
            "load_average_at_end": os.getloadavg(),
            "audit_ok": audit.returncode == 0,
            "audit_report": (audit.stdout or audit.stderr).strip().splitlines(),
            "targets": {
                "a_random_pairs": ">= 2200/s",
                "b_hot_accounts": ">= 1500/s",
                "c_ten_per_call": ">= 3x (a)",
            },
        }
        a_rate = results["a_random_pairs"]["transfers_per_s"]
        summary["targets_met"] = {
            "a_random_pairs": a_rate >= TARGETS["a_random_pairs"],
            "b_hot_accounts": results["b_hot_accounts"]["transfers_per_s"]
            >= TARGETS["b_hot_accounts"],
            "c_ten_per_call": results["c_ten_per_call"]["transfers_per_s"] >= 3 * a_rate,
        }
    finally:
        drop_database(server, BENCH_DB)
    print(
        f"{'scenario':<18}{'transfers/s':>14}{'calls/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}"
    )
    for name, r in results.items():
        print(
            f"{name:<18}{r['transfers_per_s']:>14}{r['calls_per_s']:>10}"
            f"{r['p50_ms']!s:>9}{r['p99_ms']!s:>9}{r['errors']:>8}  {r['first_error'][:200]}"
        )
    for name, b in summary["baseline_raw_sql_8_threads_same_run"].items():
        print(
            f"baseline {name:<9}{b['transfers_per_s']:>14}{'':>10}{b['p50_ms']!s:>9}{b['p99_ms']!s:>9}"
        )
    print(f"ratio to the raw-SQL baseline measured in this run: {summary['ratio_to_baseline']}")
    print(f"audit clean: {summary['audit_ok']}; targets met: {summary['targets_met']}")
    if json_path:
        path = Path(json_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(summary, indent=2))
        print(f"figures written to {path}")
    return summary


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json", default=str(DEFAULT_JSON))
    args = parser.parse_args(argv)
    summary = run(seconds=args.seconds, json_path=args.json)
    return 0 if summary["audit_ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
