"""Table service throughput: player actions/s and p50/p99 latency, hands/s, on PostgreSQL.

100 tables of 6 bots are played concurrently by worker PROCESSES (the way production runs
several workers; threads would mostly measure the GIL). Each action is a full command
through the table service: engine decision, events, the table's new version committed (on
a table whose working set the process holds, one guarded statement), and at a hand's end
the table lock, the ledger settlement, the projections and the next hand. Also measured:
the cost of loading a hand state by full replay vs the verified in-process snapshot. Runs
on a throwaway database (``bench_tables``).

Usage: python -m benchmarks.bench_tables [--seconds N] [--tables N] [--workers N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
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
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "tables.json"
#: ``make bench-compare`` gives its runs their own names (BENCH_DB_SUFFIX), so a `make bench`
#: elsewhere on the same server never drops the database under them.
BENCH_DB = "bench_tables" + os.environ.get("BENCH_DB_SUFFIX", "")
TARGET_ACTIONS_PER_S = 1000.0
TARGET_P99_MS = 50.0
#: One worker process per core, as a production deployment sizes them: more only queue
#: for the same cores (measured 2026-11-23 on 2 cores: 4 workers gave the same actions/s
#: with twice the p99).
WORKERS = os.cpu_count() or 2
THREADS = 2


def _setup(env: dict[str, str], tables: int, players: int) -> list[int]:
    """Creates the tables and seats funded bots; returns the table ids."""
    django_setup(env)
    import uuid

    from django.contrib.auth import get_user_model

    from handhistory.store import Actor
    from ledger.models import AccountKind
    from ledger.services import ledger_account_open, ledger_transfer
    from poker import money
    from poker.commands.seating import table_create, table_sit

    issuer = ledger_account_open(
        kind=AccountKind.BONUS, owner_ref="bench", currency="CHIPS", must_not_overdraw=False
    )
    user_model = get_user_model()
    ids = []
    for t in range(tables):
        table = table_create(
            name=f"bench-{t}",
            variant="NT",
            small_blind=50,
            big_blind=100,
            min_buy_in=2_000,
            max_buy_in=1_000_000,
            max_seats=players,
        )
        ids.append(table.pk)
        for p in range(players):
            user = user_model.objects.create_user(username=f"bot-{t}-{p}", password=None)
            cash = money.player_cash_account(player_id=user.pk, currency="CHIPS")
            ledger_transfer(
                transfer_id=uuid.uuid4(),
                debit_account_id=issuer.pk,
                credit_account_id=cash.pk,
                amount=10**9,
                currency="CHIPS",
                code="bench_grant",
            )
            table_sit(
                table_id=table.pk,
                player_id=user.pk,
                buy_in=1_000_000,
                key=f"sit-{t}-{p}",
                actor=Actor(kind="player", user_id=user.pk),
            )
    return ids


def _worker(
    env: dict[str, str], table_ids: list[int], seconds: float, seed: int, threads: int, out: Any
) -> None:
    """One worker process: ``threads`` bot threads, each playing its share of the tables
    (a thread's wait on PostgreSQL is another's turn to run Python)."""
    import threading

    django_setup(env)
    results: list[dict[str, Any]] = []
    bots = [
        threading.Thread(
            target=lambda i=i: results.append(
                _play(table_ids[i::threads], seconds, seed * threads + i)
            )
        )
        for i in range(threads)
    ]
    for bot in bots:
        bot.start()
    for bot in bots:
        bot.join()
    out.put(
        {
            "latencies": [x for r in results for x in r["latencies"]],
            "hands": sum(r["hands"] for r in results),
            "errors": sum(r["errors"] for r in results),
        }
    )


def _play(table_ids: list[int], seconds: float, seed: int) -> dict[str, Any]:
    """A bot thread: acts at each of its tables in turn, with random legal actions."""
    from django.db import connection

    from handhistory.models import Hand
    from handhistory.store import Actor
    from poker import table_io
    from poker.commands.play import table_act
    from poker.engine.betting import legal_actions
    from poker.hands import hand_state
    from poker.models import Table

    rng = random.Random(seed)
    latencies: list[float] = []
    hands_ended = 0
    errors = 0
    counter = 0

    def current(table_id: int) -> tuple[Any, Any] | None:
        """The running hand and its state. Each table has one bot thread, so the working
        set its own last command left in this process is current; only a table this
        process has not acted at yet is read from the database."""
        working = table_io.peek(table_id)
        if working is not None:
            return (working.hand, working.state) if working.hand is not None else None
        table = Table.objects.only("current_hand_id").get(pk=table_id)
        if table.current_hand_id is None:
            return None
        hand = Hand.objects.get(pk=table.current_hand_id)
        return hand, hand_state(hand)[0]

    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for table_id in table_ids:
            running = current(table_id)
            if running is None:
                continue
            hand, state = running
            legal = legal_actions(state)
            if legal is None:
                continue
            roll = rng.random()
            if "check" in legal.actions:
                action, amount = ("bet" if roll < 0.1 and legal.min_to else "check"), None
            else:
                action, amount = ("fold" if roll < 0.3 else "call"), None
            if action in ("bet", "raise"):
                amount = legal.min_to
                if "bet" not in legal.actions:
                    action = "raise"
            player_id = hand.player_ids[legal.actor]
            counter += 1
            started = time.perf_counter()
            try:
                table_act(
                    table_id=table_id,
                    player_id=player_id,
                    action=action,
                    amount=amount,
                    key=f"b{seed}-{counter}",
                    actor=Actor(kind="player", user_id=player_id),
                )
            except Exception:
                errors += 1
                continue
            latencies.append(time.perf_counter() - started)
            after = current(table_id)
            if after is None or after[0].pk != hand.pk:
                hands_ended += 1
            if time.perf_counter() >= deadline:
                break
    connection.close()
    return {"latencies": latencies, "hands": hands_ended, "errors": errors}


def _load_costs(env: dict[str, str]) -> dict[str, float]:
    django_setup(env)
    from handhistory.models import Hand
    from poker.hands import hand_state
    from poker.published import Published, publish

    latest: dict[int, Any] = {}  # a table publishes one hand: its latest
    for hand in Hand.objects.order_by("-pk")[:2000]:
        latest.setdefault(hand.table_id, hand)
    hands = list(latest.values())[:200]
    for hand in hands:  # publish their states, as a command's commit does
        state, head = hand_state(hand, use_snapshot=False)
        basis = Published(
            version=0, public={}, player_ids=(), state=state, hand_id=hand.pk, head=head
        )
        publish(hand.table_id, basis)
    timings = {}
    for label, use in (("replay_ms", False), ("snapshot_ms", True)):
        started = time.perf_counter()
        for hand in hands:
            hand_state(hand, use_snapshot=use)
        timings[label] = round((time.perf_counter() - started) / len(hands) * 1000, 3)
    return timings


def run(
    seconds: float = 20.0,
    tables: int = 100,
    workers: int = WORKERS,
    threads: int = THREADS,
    json_path: Path | str | None = DEFAULT_JSON,
) -> dict[str, Any]:
    url = server_url()
    env = bench_env(recreate_database(url, BENCH_DB))
    try:
        migrate = manage(env, "migrate", "--noinput")
        if migrate.returncode != 0:
            raise SystemExit(f"migrate failed:\n{migrate.stderr}")
        ctx = mp.get_context("spawn")
        setup_started = time.perf_counter()
        with ctx.Pool(1) as pool:
            table_ids = pool.apply(_setup, (env, tables, 6))
        setup_s = time.perf_counter() - setup_started
        out = ctx.Queue()
        chunks = [table_ids[i::workers] for i in range(workers)]
        procs = [
            ctx.Process(target=_worker, args=(env, chunk, seconds, i, threads, out))
            for i, chunk in enumerate(chunks)
        ]
        started = time.perf_counter()
        for p in procs:
            p.start()
        results = [out.get() for _ in procs]
        elapsed = time.perf_counter() - started
        for p in procs:
            p.join()
        with ctx.Pool(1) as pool:
            loads = pool.apply(_load_costs, (env,))
        verify = manage(env, "verify_event_store")
        audit = manage(env, "ledger_audit")
    finally:
        drop_database(url, BENCH_DB)
    latencies = sorted(x for r in results for x in r["latencies"])
    actions = len(latencies)
    figures = {
        "tables": tables,
        "bots_per_table": 6,
        "workers": workers,
        "threads_per_worker": threads,
        "seconds": round(elapsed, 2),
        "setup_seconds": round(setup_s, 1),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1),
        "hands_per_s": round(sum(r["hands"] for r in results) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2) if latencies else None,
        "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 2) if latencies else None,
        "errors": sum(r["errors"] for r in results),
        "load_state": loads,
        "verify_event_store_ok": verify.returncode == 0,
        "ledger_audit_ok": audit.returncode == 0,
        "targets": {"actions_per_s": TARGET_ACTIONS_PER_S, "p99_ms": TARGET_P99_MS},
    }
    print(
        f"tables: {figures['actions_per_s']} actions/s, p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms, "
        f"{figures['hands_per_s']} hands/s, errors {figures['errors']}; load state: replay "
        f"{loads['replay_ms']} ms vs snapshot {loads['snapshot_ms']} ms; verify ok={figures['verify_event_store_ok']} "
        f"audit ok={figures['ledger_audit_ok']}"
    )
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--threads", type=int, default=THREADS, help="bot threads per worker")
    parser.add_argument("--json", default=str(DEFAULT_JSON))
    args = parser.parse_args(argv)
    run(args.seconds, args.tables, args.workers, args.threads, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
