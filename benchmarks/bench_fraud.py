"""Collusion detection: how good (per scheme) and how fast, on a simulated room.

A room of ``--players`` bots (honest styles, injected colluders, hard negatives) plays
``--hands`` hands through the live table service on a throwaway database (``bench_fraud``),
with a seed the tests never use; then ``manage.py fraud_eval`` counts them in ten
checkpoints as the beat would and prints recall, precision of the top 20, PR-AUC and the
hands to first detection per scheme. Speed, on the same hands:

- the counting rate of one process (hands/s per worker): ``chunk_ingest`` over every hand;
- the whole job end to end with ``--workers`` processes sharing the chunks (as Celery
  workers share the chord) and then the scoring: the seconds for all the hands;
- ``manage.py fraud_analyse --rebuild`` (one process) end to end.

``--db NAME --truth FILE`` reuses a room played before (the database is kept).

``--speed`` (or ``BENCH_FRAUD_MODE=speed`` under ``make bench``) measures speed alone, in
minutes rather than half an hour: ``--hands`` realistic stored hands (default 100,000;
every variant, 2-9 players, random legal play: ``benchmarks.bench_exports``'s COPY
generator) and on them, each in fresh processes, wall clock and CPU:

- deriving the stored facts (``fraud.facts.store_hand_facts``), one worker and two;
- counting from stored facts (``chunk_ingest``), one worker and two, then the scoring;
- ``manage.py fraud_analyse --rebuild`` with the facts stored, and from bare events (the
  facts deleted first: every chunk computes and stores them);
- that the pair statistics counted from stored facts equal, to the bit, those of the
  rebuild from bare events (same facts, same sums: the same scores and cases).

Usage: python -m benchmarks.bench_fraud [--hands N] [--players N] [--seed S] [--workers N]
       python -m benchmarks.bench_fraud --speed [--hands N] [--workers N] [--db NAME]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._support import (
    bench_env,
    django_setup,
    drop_database,
    recreate_database,
    server_url,
    with_db,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "fraud.json"
BENCH_DB = "bench_fraud"
#: Hands per chunk, as `FRAUD_CHUNK_HANDS` deploys it (config/settings.py).
CHUNK = 10_000
SPEED_DB = "bench_fraud_speed"
SPEED_JSON = ROOT / "benchmarks" / "results" / "fraud_speed.json"
SEED = 16
WORKERS = 2
TARGET_HANDS_PER_S_PER_WORKER = 20_000.0
TARGET_END_TO_END_S = 60.0


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def _reset(env: dict[str, str]) -> list[int]:
    """Forgets the counts; returns the finished hands' ids."""
    django_setup(env)
    from django.db import transaction

    from fraud.models import IngestedHand, PairEvidence, PairStat
    from handhistory.models import Hand

    with transaction.atomic():
        PairEvidence.objects.all().delete()
        PairStat.objects.all().delete()
        IngestedHand.objects.all().delete()
    return list(
        Hand.objects.filter(ended_at__isnull=False).order_by("pk").values_list("pk", flat=True)
    )


def _count(env: dict[str, str], chunks: list[list[int]], out: Any) -> None:
    """One worker: counts its chunks; reports (hands, seconds, cpu seconds)."""
    django_setup(env)
    from fraud.ingest import chunk_ingest

    started, cpu = time.perf_counter(), time.process_time()
    hands = sum(chunk_ingest(hand_ids=c).hands for c in chunks)
    out.put((hands, time.perf_counter() - started, time.process_time() - cpu))


def _derive(env: dict[str, str], chunks: list[list[int]], out: Any) -> None:
    """One worker: derives and stores its chunks' facts, as the beat's derivation does;
    reports (hands, seconds, cpu seconds)."""
    django_setup(env)
    from fraud.facts import store_hand_facts
    from handhistory.exports.records import hand_records

    started, cpu = time.perf_counter(), time.process_time()
    hands = 0
    for chunk in chunks:
        records = hand_records(chunk)
        store_hand_facts(records)
        hands += len(records)
    out.put((hands, time.perf_counter() - started, time.process_time() - cpu))


def _workers(target: Any, env: dict[str, str], chunks: list[list[int]], workers: int) -> Any:
    """``target`` in ``workers`` fresh processes sharing ``chunks``: (hands, wall seconds,
    cpu seconds of all of them)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=target, args=(env, chunks[w::workers], out)) for w in range(workers)
    ]
    started = time.perf_counter()
    for p in procs:
        p.start()
    parts = [out.get() for _ in procs]
    wall = time.perf_counter() - started
    for p in procs:
        p.join()
    return sum(p[0] for p in parts), wall, sum(p[2] for p in parts)


def _forget(env: dict[str, str], facts: bool, out: Any) -> None:
    """Forgets the counts (and the stored facts with ``facts``); reports the hand ids."""
    ids = _reset(env)
    if facts:
        from fraud.models import StoredFacts

        StoredFacts.objects.all().delete()
    out.put(ids)


def _stats(env: dict[str, str], out: Any) -> None:
    django_setup(env)
    from fraud.models import PairStat

    out.put(
        sorted(
            PairStat.objects.values_list(
                "player_id",
                "partner_id",
                "hands",
                "ev_net",
                "ev_clip",
                "ev_clip_sq",
                "soft_opp",
                "soft_agg",
                "fold_opp",
                "fold_cnt",
                "share_t",
                "share_v",
            )
        )
    )


def _timed_manage(env: dict[str, str], *args: str) -> tuple[float, float]:
    """Runs ``manage.py *args``: (wall seconds, CPU seconds of the process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    _manage(env, *args)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _rate(hands: int, seconds: float) -> float:
    return round(hands / seconds, 1) if seconds else 0.0


def speed_bench(
    hands: int = 100_000,
    workers: int = WORKERS,
    db: str | None = None,
    json_path: Path | str | None = SPEED_JSON,
    chunk: int = CHUNK,
) -> dict[str, Any]:
    """The speed of deriving, counting and scoring on ``hands`` generated stored hands (or
    on the hands of database ``db``, kept)."""
    from benchmarks.bench_exports import _generate

    url = server_url()
    env = bench_env(with_db(url, db) if db else recreate_database(url, SPEED_DB))
    # fraud_analyse cuts the same chunks as the steps here: the same sums in the same order,
    # so its statistics must equal theirs to the bit.
    env["FRAUD_CHUNK_HANDS"] = str(chunk)
    try:
        generated: dict[str, Any] = {}
        if not db:
            _manage(env, "migrate", "--noinput")
            generated = _generate(env, hands, SEED)
            print(
                f"generated {generated['hands']:,} hands ({generated['events']:,} events, "
                f"{generated['tables']} tables) in {generated['seconds']} s",
                flush=True,
            )
        figures: dict[str, Any] = {"generated": generated, "chunk_hands": chunk}

        def step(name: str, target: Any, n: int, facts: bool) -> None:
            ids = _in_process(_forget, env, facts)
            chunks = [ids[i : i + chunk] for i in range(0, len(ids), chunk)]
            counted, wall, cpu = _workers(target, env, chunks, n)
            figures[name] = {
                "hands": counted,
                "workers": n,
                "seconds": round(wall, 2),
                "hands_per_s": _rate(counted, wall),
                "cpu_hands_per_s": _rate(counted, cpu),
            }
            print(
                f"  {name:<22} {n} worker(s): {counted:,} hands in {wall:6.1f} s: "
                f"{_rate(counted, wall):>9,.0f} hands/s (CPU {_rate(counted, cpu):>9,.0f})",
                flush=True,
            )

        step("derive_facts", _derive, 1, True)
        step("derive_facts_workers", _derive, workers, True)
        step("count_stored", _count, 1, False)
        stored_stats = _in_process(_stats, env)
        step("count_stored_workers", _count, workers, False)
        found, scoring = _in_process(_score, env)
        figures["scoring_s"] = round(scoring, 2)
        figures["suspicions"] = found
        figures["end_to_end_s_with_workers"] = round(
            figures["count_stored_workers"]["seconds"] + scoring, 1
        )
        wall, cpu = _timed_manage(env, "fraud_analyse", "--rebuild", "--verbosity", "0")
        figures["fraud_analyse_rebuild_stored"] = {
            "seconds": round(wall, 1),
            "cpu_seconds": round(cpu, 1),
        }
        _in_process(_forget, env, True)
        wall, cpu = _timed_manage(env, "fraud_analyse", "--rebuild", "--verbosity", "0")
        figures["fraud_analyse_rebuild_bare"] = {
            "seconds": round(wall, 1),
            "cpu_seconds": round(cpu, 1),
        }
        figures["same_stats_stored_and_bare"] = _in_process(_stats, env) == stored_stats
    finally:
        if not db:
            drop_database(url, SPEED_DB)
    figures["targets"] = {
        "hands_per_s_per_worker": TARGET_HANDS_PER_S_PER_WORKER,
        "end_to_end_s": TARGET_END_TO_END_S,
    }
    print(
        f"  scoring {scoring:.2f} s ({found} suspicions); end to end with {workers} workers "
        f"(facts stored) {figures['end_to_end_s_with_workers']} s (target "
        f"{TARGET_END_TO_END_S:.0f} s); fraud_analyse --rebuild: facts stored "
        f"{figures['fraud_analyse_rebuild_stored']['seconds']} s, bare events "
        f"{figures['fraud_analyse_rebuild_bare']['seconds']} s; pair statistics from stored "
        f"facts {'equal' if figures['same_stats_stored_and_bare'] else 'DIFFER FROM'} those "
        "from bare events",
        flush=True,
    )
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return figures


def _score(env: dict[str, str], out: Any) -> None:
    django_setup(env)
    from fraud.detect import pair_scores, suspicions

    started = time.perf_counter()
    found = suspicions(pair_scores())
    out.put((len(found), time.perf_counter() - started))


def _in_process(target: Any, *args: Any) -> Any:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, out))
    proc.start()
    result = out.get()
    proc.join()
    return result


def _speed(env: dict[str, str], workers: int, chunk: int = CHUNK) -> dict[str, Any]:
    ids = _in_process(_ids_after_reset, env)
    chunks = [ids[i : i + chunk] for i in range(0, len(ids), chunk)]
    one = _in_process(_count, env, chunks)
    _in_process(_ids_after_reset, env)
    counted_hands, counted, _ = _workers(_count, env, chunks, workers)
    cases, scoring = _in_process(_score, env)
    started = time.perf_counter()
    _manage(env, "fraud_analyse", "--rebuild", "--verbosity", "0")
    rebuild = time.perf_counter() - started
    return {
        "hands": len(ids),
        "one_worker_hands_per_s": round(one[0] / one[1], 1),
        "one_worker_cpu_hands_per_s": round(one[0] / one[2], 1),
        "workers": workers,
        "workers_hands_per_s": round(counted_hands / counted, 1),
        "scoring_s": round(scoring, 2),
        "suspicions": cases,
        "end_to_end_s_with_workers": round(counted + scoring, 1),
        "fraud_analyse_rebuild_s": round(rebuild, 1),
    }


def _ids_after_reset(env: dict[str, str], out: Any) -> None:
    out.put(_reset(env))


def run(
    hands: int = 100_000,
    players: int = 60,
    seed: int = SEED,
    workers: int = WORKERS,
    db: str | None = None,
    truth: str | None = None,
    json_path: Path | str | None = DEFAULT_JSON,
) -> dict[str, Any]:
    if os.environ.get("BENCH_FRAUD_MODE") == "speed":
        return speed_bench(hands, workers)
    url = server_url()
    env = bench_env(with_db(url, db) if db else recreate_database(url, BENCH_DB))
    try:
        if not db:
            _manage(env, "migrate", "--noinput")
        with tempfile.TemporaryDirectory() as tmp:
            figures_path = Path(tmp) / "eval.json"
            args = ["--json", str(figures_path)]
            if truth:
                args += ["--truth", truth]
            else:
                args += [
                    "--seed",
                    str(seed),
                    "--hands",
                    str(hands),
                    "--players",
                    str(players),
                    "--workers",
                    str(workers),
                ]
            started = time.perf_counter()
            printed = _manage(env, "fraud_eval", *args)
            eval_s = time.perf_counter() - started
            quality = json.loads(figures_path.read_text())
        room = json.loads(Path(truth or ROOT / "var" / "fraud" / f"room-{seed}.json").read_text())
        speed = _speed(env, workers)
    finally:
        if not db:
            drop_database(url, BENCH_DB)
    result = {
        "room": {
            "seed": room["seed"],
            "players": len(room["players"]),
            "hands": room["hands"],
            "play_seconds": room["seconds"],
            "groups": len(room["groups"]),
        },
        "quality": quality,
        "speed": speed,
        "eval_seconds": round(eval_s, 1),
        "targets": {
            "hands_per_s_per_worker": TARGET_HANDS_PER_S_PER_WORKER,
            "end_to_end_s": TARGET_END_TO_END_S,
        },
    }
    print(printed)
    print(
        f"speed on {speed['hands']} hands: one worker {speed['one_worker_hands_per_s']:,.0f} "
        f"hands/s (CPU {speed['one_worker_cpu_hands_per_s']:,.0f}; target "
        f"{TARGET_HANDS_PER_S_PER_WORKER:,.0f}); {workers} workers "
        f"{speed['workers_hands_per_s']:,.0f} hands/s; scoring {speed['scoring_s']} s; end to "
        f"end {speed['end_to_end_s_with_workers']} s with {workers} workers (target "
        f"{TARGET_END_TO_END_S:.0f} s), fraud_analyse --rebuild {speed['fraud_analyse_rebuild_s']} s"
    )
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(result, indent=2))
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--db", default=None, help="a database holding a room played before")
    parser.add_argument("--truth", default=None, help="that room's truth file")
    parser.add_argument("--json", default=None)
    parser.add_argument("--chunk", type=int, default=CHUNK, help="hands per chunk (--speed)")
    parser.add_argument(
        "--speed", action="store_true", help="speed alone, on generated stored hands (see above)"
    )
    args = parser.parse_args(argv)
    if args.speed:
        if args.truth:
            parser.error("--speed reads no truth")
        speed_bench(args.hands, args.workers, args.db, args.json or SPEED_JSON, args.chunk)
        return 0
    if bool(args.db) != bool(args.truth):
        parser.error("--db and --truth go together")
    run(
        args.hands,
        args.players,
        args.seed,
        args.workers,
        args.db,
        args.truth,
        args.json or DEFAULT_JSON,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
