"""``room_simulate``: a room of bots playing many hands through the live table service.

Setup creates the players (``sim<seed>-<n>``, unusable passwords), funds each wallet by a
ledger transfer from a play-money issuer, and opens the tables; then worker PROCESSES
(each with its own database connection, forked after the parent closed its own) play
disjoint sets of tables with a bot thread per table, as ``benchmarks/bench_tables`` does.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import queue
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test import override_settings

from fraud.simulation import bots
from fraud.simulation.room import (
    RoomPlan,
    RoomSpec,
    RoomTruth,
    Round,
    room_plan,
    room_truth,
    schedule,
    table_count,
)
from fraud.simulation.tables import (
    BIG_BLIND,
    BUY_IN,
    MIN_BUY_IN,
    SMALL_BLIND,
    SimPlayer,
    TableRunner,
)
from handhistory.models import Hand
from handhistory.store import Actor
from ledger.models import AccountKind
from ledger.services import ledger_account_open, ledger_transfer
from poker import money
from poker.commands.seating import table_create

#: Each wallet's grant: ten thousand buy-ins, more than any player loses in a run.
FUNDS = 10_000 * BUY_IN
#: Bot threads per worker at most: one per table, since a command mostly waits for
#: PostgreSQL (profiled: over 80% of a command's time is the database round trips), so
#: more tables in flight is what raises hands/s, not more Python.
MAX_THREADS = 8
_REPORT_S = 0.5

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class _Job:
    """What a worker needs to build its table runners."""

    plan: RoomPlan
    user_ids: list[int]
    rounds: list[Round]
    tables: list[tuple[int, int, int]]  # (position, table id, quota)
    seed: int
    threads: int


def room_simulate(
    *,
    players: int = 60,
    hands: int = 100_000,
    seed: int,
    schemes: RoomSpec | None = None,
    workers: int = 1,
    progress: Progress | None = None,
    threads: int | None = None,
) -> RoomTruth:
    """Plays a room of ``players`` bots for about ``hands`` hands and returns its truth.

    Every hand goes through the real table service, so the event store, the ledger and
    the projections are what production writes. The room (players, styles, groups,
    addresses, seating) and the bots' decisions come from ``random.Random(seed)``; the
    deal comes from the table's secure shuffle, so two runs with one seed give the same
    room but not the same cards (and, with several threads, not the same interleaving).
    ``progress(done, total)`` is called with finished hands as they come.
    """
    plan = room_plan(players=players, seed=seed, spec=schemes or RoomSpec())
    tables = table_count(players)
    rounds = schedule(plan, hands=hands, tables=tables, seed=seed)
    user_ids, usernames, table_ids = _setup(plan, seed, tables)
    quotas = [hands // tables + (1 if t < hands % tables else 0) for t in range(tables)]
    specs = [(t, table_ids[t], quotas[t]) for t in range(tables)]
    workers = max(1, min(workers, tables))
    per_worker = threads or min(MAX_THREADS, math.ceil(tables / workers))
    jobs = [
        _Job(plan, user_ids, rounds, specs[w::workers], seed, per_worker) for w in range(workers)
    ]
    started = time.perf_counter()
    # Bots read a hand's result at once: no pause between hands (it is there for people).
    with override_settings(POKER_HAND_PAUSE_MS=0):
        totals = _run(jobs, hands, progress)
    elapsed = time.perf_counter() - started
    played = Hand.objects.filter(table_id__in=table_ids, ended_at__isnull=False).count()
    return room_truth(
        plan,
        user_ids,
        usernames,
        hands=played,
        tables=tables,
        seconds=round(elapsed, 2),
        errors=totals["errors"],
        extra={"commands": totals["commands"], "hands_per_s": round(played / elapsed, 1)},
    )


def _setup(plan: RoomPlan, seed: int, tables: int) -> tuple[list[int], list[str], list[int]]:
    users = get_user_model()
    prefix = f"sim{seed}-"
    if users.objects.filter(username__startswith=prefix).exists():
        raise ValueError(f"a room with seed {seed} exists in this database already ({prefix}*)")
    issuer = ledger_account_open(
        kind=AccountKind.BONUS, owner_ref=f"sim-{seed}", currency="CHIPS", must_not_overdraw=False
    )
    user_ids, usernames = [], []
    for p in plan.players:
        user = users.objects.create_user(username=f"{prefix}{p.index + 1}", password=None)
        cash = money.player_cash_account(player_id=user.pk, currency="CHIPS")
        ledger_transfer(
            transfer_id=uuid.uuid4(),
            debit_account_id=issuer.pk,
            credit_account_id=cash.pk,
            amount=FUNDS,
            currency="CHIPS",
            code="sim_grant",
        )
        user_ids.append(user.pk)
        usernames.append(user.get_username())
    table_ids = [
        table_create(
            name=f"sim{seed} #{t + 1}",
            variant="NT",
            small_blind=SMALL_BLIND,
            big_blind=BIG_BLIND,
            min_buy_in=MIN_BUY_IN,
            max_buy_in=BUY_IN,
            max_seats=6,
        ).pk
        for t in range(tables)
    ]
    return user_ids, usernames, table_ids


def _run(jobs: list[_Job], total: int, progress: Progress | None) -> dict[str, int]:
    """Runs the jobs (in this process when there is one, else one forked process each)
    and relays their hand counts to ``progress`` until all are done."""
    out: Any
    if len(jobs) == 1:
        out = queue.Queue()
        runners: list[Any] = [threading.Thread(target=_work, args=(jobs[0], out))]
    else:
        connections.close_all()  # a forked child must open its own connection
        context = mp.get_context("fork")
        out = context.Queue()
        runners = [context.Process(target=_work_process, args=(job, out)) for job in jobs]
    for r in runners:
        r.start()
    done, totals, finished = 0, {"errors": 0, "commands": 0}, 0
    try:
        while finished < len(jobs):
            try:
                kind, value = out.get(timeout=5)
            except queue.Empty:
                if not any(r.is_alive() for r in runners):
                    raise RuntimeError("a simulation worker died without reporting") from None
                continue
            if kind == "hands":
                done += value
                if progress is not None:
                    progress(done, total)
            elif kind == "done":
                finished += 1
                for k in totals:
                    totals[k] += value[k]
            else:
                raise RuntimeError(f"a simulation worker failed:\n{value}")
    finally:
        for r in runners:
            r.join()
    return totals


def _work_process(job: _Job, out: Any) -> None:
    try:
        _work(job, out)
    finally:
        connections.close_all()


def _work(job: _Job, out: Any) -> None:
    """One worker: ``job.threads`` bot threads, each playing its share of the tables."""
    try:
        relations = job.plan.relations()
        players = {
            job.user_ids[p.index]: SimPlayer(
                index=p.index,
                user_id=job.user_ids[p.index],
                style=bots.STYLES[p.style],
                actor=Actor(
                    kind="player",
                    user_id=job.user_ids[p.index],
                    client_ip=p.client_ip,
                    device_id=p.device_id,
                ),
                relations=relations.get(p.index, {}),
            )
            for p in job.plan.players
        }
        runners = [
            TableRunner(
                table_id=table_id,
                position=position,
                rounds=job.rounds,
                quota=quota,
                players=players,
                seed=job.seed,
            )
            for position, table_id, quota in job.tables
        ]
        shares = [
            runners[i :: job.threads] for i in range(job.threads) if runners[i :: job.threads]
        ]
        failures: list[str] = []
        threads = [threading.Thread(target=_play, args=(share, out, failures)) for share in shares]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if failures:
            out.put(("error", failures[0]))
            return
        out.put(
            (
                "done",
                {
                    "errors": sum(r.errors for r in runners),
                    "commands": sum(r.commands for r in runners),
                },
            )
        )
    except Exception:
        out.put(("error", traceback.format_exc()))


def _play(runners: list[TableRunner], out: Any, failures: list[str]) -> None:
    """A bot thread: one command at each of its tables in turn until all are done."""
    try:
        reported = 0
        last = time.perf_counter()
        active = list(runners)
        while active:
            active = [r for r in active if r.step()]
            now = time.perf_counter()
            if now - last >= _REPORT_S or not active:
                hands = sum(min(r.hands, r.quota) for r in runners)
                if hands > reported:
                    out.put(("hands", hands - reported))
                    reported = hands
                last = now
    except Exception:
        failures.append(traceback.format_exc())
    finally:
        connection.close()
