"""Hand-history export speed: hands/s and peak memory per format on 100,000 stored hands,
side by side with pokerkit's ``HandHistory.dumps``.

The dataset: ``--hands`` finished hands (default 100,000) at 200 tables of every variant
(NT, PO, NS, FT), 2 to 9 players, chips and USD, some with antes, a short-deck button
blind or rake (forced bets in the engine's order, ``poker.engine.config.forced_by_player``),
played by the pure engine under a random legal policy (folds, showdowns,
all-ins and side pots) and stored in the shapes the table service stores: ``Hand`` rows,
the hand streams' ``Event`` rows (``event.to_dict()`` payloads, hash-chained by
``handhistory.store.chain`` with the service's actors) and ``PlayerHandResult`` rows;
users and tables. One "hero" sits at every table, so a player's export selects every hand
too. Rows go in with ``COPY``: through the table service the same hands would take a
quarter of an hour. Not written: table streams, hand summaries and the ledger's
settlements (the exports read none of them).

Then every hand is derived as the live path leaves it (``handhistory.derived.derive_hands``
a chunk at a time, as the backlog task does: the stored export texts of every format), one
process per core, timed on its own: the derivation rate is the cost the exports no longer
pay.

Measured, for every format in ``handhistory.exports.FORMATS`` and for a player (the hero)
and for staff, on the first 10,000 hands and on all of them: the export job's whole
streaming path, ``stored.iter_texts(Hand.objects.filter(...))`` + ``write_texts`` into a
temporary file, one process on one core. Each export runs in a fresh process, which
reports hands/s (wall clock, with PostgreSQL on the same machine, and the process's own
CPU time) and its memory growth: the peak RSS during the export above the RSS before it.
A second run of each staff export under ``tracemalloc`` gives the Python heap's peak
(tracemalloc slows Python down, so it is never timed).

pokerkit: ``HandHistory.dumps`` only writes a hand it holds in memory, so it is compared
twice. Formatting alone: the first ``--pokerkit-hands`` hands (default 2,000) loaded (not
timed), each format's ``hand()`` timed on them, and pokerkit's ``dumps()`` timed on the
same hands (our staff PHH read once with ``HandHistory.loads``, not timed). And each whole
export (loading included) against that ``dumps()`` rate. Ratios use CPU time, steadier
than wall time on a shared machine.

Usage: python -m benchmarks.bench_exports [--hands N] [--pokerkit-hands N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks._support import (
    bench_env,
    django_setup,
    drop_database,
    in_fresh_process,
    manage,
    recreate_database,
    server_url,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "exports.json"
BENCH_DB = "bench_exports"
SEED = 15
TABLES = 200
HERO = "hero"
#: Hands played and written per COPY round (bounded memory while generating).
BATCH = 5_000
TARGET_HANDS_PER_S = 5_000.0
TARGET_VS_POKERKIT = 10.0
#: (variant, share of the tables)
VARIANTS = (("NT", 0.5), ("PO", 0.2), ("NS", 0.15), ("FT", 0.15))
START = datetime(2026, 11, 1, tzinfo=UTC)


# --- the dataset ------------------------------------------------------------------------


def _table_specs(rng: random.Random) -> list[dict[str, Any]]:
    """The tables' settings: every variant, 2-9 seats, chips and USD, antes, rake."""
    specs = []
    variants = [v for v, share in VARIANTS for _ in range(round(share * TABLES))]
    for t, variant in enumerate(variants[:TABLES]):
        players = rng.randint(2, 6 if variant == "NS" else 9)
        usd = rng.random() < 0.3
        small, big = (5, 10) if usd else (50, 100)
        specs.append(
            {
                "name": f"{variant}-{t} {'$' if usd else 'chips'}",
                "variant": variant,
                "currency": "USD" if usd else "CHIPS",
                "small_blind": small,
                "big_blind": big,
                "ante": big // 10 if variant in ("NS", "NT") and rng.random() < 0.3 else 0,
                "button_blind": big if variant == "NS" and rng.random() < 0.5 else 0,
                "max_seats": max(players, rng.choice((2, 6, 9)) if players <= 6 else 9),
                "min_buy_in": 20 * big,
                "max_buy_in": 200 * big,
                "rake_bps": 500 if rng.random() < 0.5 else 0,
                "rake_cap": 3 * big,
                "players": players,
            }
        )
    return specs


def _config(spec: dict[str, Any], stacks: tuple[int, ...]) -> Any:
    """The hand's engine config, built as ``poker.dealer.maybe_start_hand`` builds it: what
    each player posts (heads-up the button posts the small blind), in the engine's order."""
    from poker.engine.config import HandConfig, RakeConfig, forced_by_player

    n = len(stacks)
    big = spec["big_blind"]
    small_at, big_at = (0, 1) if n > 2 else (1, 0)
    posted = [0] * n
    posted[small_at], posted[big_at] = spec["small_blind"], big
    if spec["button_blind"] and n > 2:
        posted[n - 1] = spec["button_blind"]
    fixed_limit = spec["variant"] == "FT"
    return HandConfig(
        variant=spec["variant"],
        starting_stacks=stacks,
        blinds_or_straddles=forced_by_player(posted),
        antes=forced_by_player([spec["ante"]] * n),
        ante_trimming=True,
        min_bet=0 if fixed_limit else big,
        small_bet=big if fixed_limit else 0,
        big_bet=2 * big if fixed_limit else 0,
        rake=RakeConfig(bps=spec["rake_bps"], cap=spec["rake_cap"], no_flop_no_drop=True),
    )


def _play(config: Any, rng: random.Random) -> tuple[list[tuple[int | None, list[Any]]], Any]:
    """One hand under a random legal policy: ([(acting player or None, events)], state).

    Each command's events are kept together, as the table service appends them (the
    acting player's, or the system's for the deal and the showdown).
    """
    from poker.engine.deck import FairDeck
    from poker.engine.game import act, legal_actions, showdown_auto, start_hand

    state, events = start_hand(config, FairDeck(rng.randbytes(32)))
    steps: list[tuple[int | None, list[Any]]] = [(None, events)]
    while not state.is_over:
        legal = legal_actions(state)
        if legal is None:
            state, more = showdown_auto(state)
            steps.append((None, more))
            continue
        roll, amount = rng.random(), None
        actions = legal.actions
        if "fold" in actions and roll < 0.3:
            action = "fold"
        elif roll < 0.8 or legal.min_to is None:
            action = "check" if "check" in actions else "call"
        else:
            action = "raise" if "raise" in actions else "bet"
            low, high = legal.min_to, legal.max_to
            assert high is not None
            amount = high if rng.random() < 0.15 else rng.randint(low, min(high, 3 * low))
        state, more = act(state, legal.actor, action, amount)
        steps.append((legal.actor, more))
    return steps, state


def _copy_text(value: Any) -> str:
    r"""A value in COPY's text format (\N is NULL; our values hold no tab, newline or \)."""
    return "\\N" if value is None else str(value)


def _setup(env: dict[str, str], seed: int) -> dict[str, Any]:
    """Creates the hero, the tables and their players; returns them for the players."""
    django_setup(env)
    from django.contrib.auth import get_user_model

    from poker.models import Table

    rng = random.Random(seed)
    user_model = get_user_model()
    hero = user_model.objects.create_user(username=HERO, password=None)
    tables = []
    for spec in _table_specs(rng):
        table = Table.objects.create(**{k: v for k, v in spec.items() if k != "players"})
        bots = user_model.objects.bulk_create(
            [
                user_model(username=f"{spec['name'][:20]}-{p}", password="!")
                for p in range(spec["players"] - 1)
            ]
        )
        seats = sorted(rng.sample(range(1, spec["max_seats"] + 1), spec["players"]))
        lineup = list(zip(seats, [hero.pk] + [u.pk for u in bots], strict=True))
        tables.append({"id": table.pk, "spec": spec, "lineup": lineup})
    return {"hero": hero.pk, "tables": tables}


def _generate(env: dict[str, str], hands: int, seed: int) -> dict[str, Any]:
    """Creates the users, tables and ``hands`` finished hands; returns what the exports need.

    One process per core plays and stores its share of the tables, hand ids in one
    contiguous range per process.
    """
    started = time.perf_counter()
    setup = in_fresh_process(_setup, env, seed)
    parts = max(2, os.cpu_count() or 2)
    shares = [hands // parts + (1 if k < hands % parts else 0) for k in range(parts)]
    firsts = [1 + sum(shares[:k]) for k in range(parts)]
    tables = setup["tables"]
    jobs = [
        (
            env,
            [t for i, t in enumerate(tables) if i % parts == k],
            firsts[k],
            shares[k],
            seed + 1 + k,
        )
        for k in range(parts)
    ]
    with mp.get_context("spawn").Pool(parts) as pool:
        played = pool.starmap(_play_and_store, jobs)
    numbers = {table_id: n for part in played for table_id, n in part["numbers"].items()}
    chains_ok = in_fresh_process(_finish, env, hands, numbers)
    return {
        "hero": setup["hero"],
        "hands": hands,
        "events": sum(part["events"] for part in played),
        "tables": len(tables),
        "variants": {v: sum(1 for t in tables if t["spec"]["variant"] == v) for v, _ in VARIANTS},
        "seconds": round(time.perf_counter() - started, 1),
        "processes": parts,
        "chains_ok": chains_ok,
    }


def _play_and_store(
    env: dict[str, str], tables: list[dict[str, Any]], first_id: int, hands: int, seed: int
) -> dict[str, Any]:
    """Plays ``hands`` hands at ``tables`` (ids from ``first_id``) and COPYs them in."""
    django_setup(env)
    import orjson
    from django.db import connection

    from handhistory.store import GENESIS, Actor, NewEvent, chain
    from poker.engine.cards import format_cards
    from poker.engine.events import CardsShown

    rng = random.Random(seed)
    event_columns = (
        "stream, seq, type, version, payload, recorded_at, actor_kind, actor_id, "
        "client_ip, device_id, prev_hash, hash"
    )
    result_columns = (
        "hand_id, player_id, table_id, seat, starting_stack, final_stack, net, "
        "won, showed, ended_at"
    )
    events_total = 0
    hand_id = first_id - 1
    numbers = dict.fromkeys((t["id"] for t in tables), 0)
    at = START
    for first in range(0, hands, BATCH):
        hand_rows, event_rows, result_rows = [], [], []
        for _ in range(min(BATCH, hands - first)):
            hand_id += 1
            table = rng.choice(tables)
            spec, lineup, table_id = table["spec"], table["lineup"], table["id"]
            numbers[table_id] += 1
            # The button moves one seat a hand; engine order ends with the button.
            turn = numbers[table_id] % len(lineup)
            ordered = lineup[turn + 1 :] + lineup[: turn + 1]
            big = spec["big_blind"]
            stacks = tuple(rng.randint(20, 200) * big for _ in ordered)
            steps, state = _play(_config(spec, stacks), rng)
            stream = f"hand-{hand_id}"
            head = (0, GENESIS)
            at += timedelta(seconds=rng.randint(5, 60))
            moment = at
            showed: dict[int, str] = {}
            for actor, events in steps:
                moment += timedelta(milliseconds=rng.randint(300, 9_000))
                stamp = moment.isoformat()
                who = Actor() if actor is None else Actor(kind="player", user_id=ordered[actor][1])
                new = [
                    NewEvent(type=type(e).__name__, version=e.version, payload=e.to_dict())
                    for e in events
                ]
                for row in chain(
                    stream=stream, events=new, actor=who, head=head, recorded_at=moment
                ):
                    head = (row["seq"], row["hash"])
                    event_rows.append(
                        "\t".join(
                            (
                                stream,
                                str(row["seq"]),
                                row["type"],
                                str(row["version"]),
                                orjson.dumps(row["payload"]).decode(),
                                stamp,
                                row["actor_kind"],
                                _copy_text(row["actor_id"]),
                                "\\N",
                                "",
                                row["prev_hash"],
                                row["hash"],
                            )
                        )
                    )
                for e in events:
                    if isinstance(e, CardsShown):
                        showed[e.player] = format_cards(e.cards)
            events_total += head[0]
            hand_rows.append(
                "\t".join(
                    (
                        str(hand_id),
                        str(table_id),
                        str(numbers[table_id]),
                        json.dumps([s for s, _ in ordered]),
                        json.dumps([u for _, u in ordered]),
                        at.isoformat(),
                        stamp,
                        "\\N",
                        "\\N",
                        "\\N",
                    )
                )
            )
            for i, (seat, user) in enumerate(ordered):
                result_rows.append(
                    "\t".join(
                        map(
                            str,
                            (
                                hand_id,
                                user,
                                table_id,
                                seat,
                                stacks[i],
                                state.stacks[i],
                                state.stacks[i] - stacks[i],
                                state.won[i],
                                showed.get(i, ""),
                                stamp,
                            ),
                        )
                    )
                )
        with connection.cursor() as cursor:
            raw = cursor.cursor  # psycopg's own cursor: COPY
            for sql, rows in (
                (
                    "COPY poker_hand (id, table_id, number, seat_numbers, player_ids, started_at, "
                    "ended_at, actor_index, turn_started_at, deadline) FROM STDIN",
                    hand_rows,
                ),
                (f"COPY handhistory_event ({event_columns}) FROM STDIN", event_rows),
                (f"COPY handhistory_playerhandresult ({result_columns}) FROM STDIN", result_rows),
            ):
                with raw.copy(sql) as copy:
                    copy.write("\n".join(rows) + "\n")
    connection.close()
    return {"events": events_total, "numbers": numbers}


def _finish(env: dict[str, str], hands: int, numbers: dict[int, int]) -> bool:
    """The hand id sequence and the tables' hand counts after the COPYs, fresh planner
    statistics; whether a sample of the hash chains verifies."""
    django_setup(env)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT setval('poker_hand_id_seq', %s)", [hands])
        for table_id, count in numbers.items():
            cursor.execute(
                "UPDATE poker_table SET hands_played = %s WHERE id = %s", [count, table_id]
            )
        cursor.execute("ANALYZE")
    return _check_chains(hands)


def _check_chains(last_hand: int) -> bool:
    """The hash chains of a sample of hands verify as ``verify_event_store`` checks them."""
    from handhistory.models import Event
    from handhistory.store import verify_chain

    sample = random.Random(0).sample(range(1, last_hand + 1), min(200, last_hand))
    rows = Event.objects.filter(stream__in=[f"hand-{h}" for h in sample]).order_by("stream", "seq")
    by_stream: dict[str, list[Event]] = {}
    for row in rows:
        by_stream.setdefault(row.stream, []).append(row)
    return len(by_stream) == len(sample) and not any(verify_chain(r) for r in by_stream.values())


# --- the exports ------------------------------------------------------------------------


def _derive(env: dict[str, str], first: int, last: int) -> dict[str, Any]:
    """Derives hands ``first`` to ``last`` through the registry, as the backlog task does
    (``handhistory.derived.derive_hands`` a chunk at a time): records loaded once, every
    product computed and stored. Returns hands, wall and CPU seconds."""
    django_setup(env)
    from handhistory.derived import CHUNK, derive_hands

    wall, cpu = time.perf_counter(), time.process_time()
    done = 0
    for start in range(first, last + 1, CHUNK):
        done += derive_hands(range(start, min(last + 1, start + CHUNK)))
    return {
        "hands": done,
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
    }


def _derive_all(env: dict[str, str], hands: int) -> dict[str, Any]:
    """Every hand derived, one process per core on a contiguous share of the ids: the
    rate per process (its own CPU, and wall clock) and the whole run's wall clock."""
    parts = max(2, os.cpu_count() or 2)
    bounds = [(1 + hands * k // parts, hands * (k + 1) // parts) for k in range(parts)]
    started = time.perf_counter()
    with mp.get_context("spawn").Pool(parts) as pool:
        runs = pool.starmap(_derive, [(env, a, b) for a, b in bounds])
    seconds = time.perf_counter() - started
    done = sum(r["hands"] for r in runs)
    return {
        "hands": done,
        "processes": parts,
        "seconds": round(seconds, 1),
        "hands_per_s": round(done / seconds, 1),
        "cpu_hands_per_s_per_process": round(done / sum(r["cpu_seconds"] for r in runs), 1),
        "wall_hands_per_s_per_process": round(done / sum(r["seconds"] for r in runs), 1),
    }


def _rss_kb() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


def _selection(viewer: str, hero: int, last_hand: int) -> Any:
    """The export job's selection: the hero's hands (through their results) or any hands."""
    from handhistory.models import Hand

    hands = Hand.objects.filter(pk__lte=last_hand)
    return hands.filter(results__player_id=hero) if viewer == "player" else hands


def _export(
    env: dict[str, str], fmt_name: str, viewer: str, hero: int, last_hand: int, traced: bool
) -> dict[str, Any]:
    """One export in this (fresh) process: hands, seconds, CPU seconds, memory growth."""
    django_setup(env)
    import tracemalloc

    from handhistory.exports import FORMATS, write_texts
    from handhistory.exports.records import STAFF, Viewer
    from handhistory.stored_texts import iter_texts

    fmt = FORMATS[fmt_name]
    who = STAFF if viewer == "staff" else Viewer(user_id=hero)
    with tempfile.TemporaryFile("w", encoding="utf-8") as out:
        # Warm-up (imports, connection, caches) on a few hands, then the measured export.
        write_texts(fmt, iter_texts(_selection(viewer, hero, 50), fmt, who), out)
        out.seek(0)
        out.truncate()
        if traced:
            tracemalloc.start()
        rss_before = _rss_kb()
        wall, cpu = time.perf_counter(), time.process_time()
        texts = iter_texts(_selection(viewer, hero, last_hand), fmt, who)
        count = write_texts(fmt, texts, out)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        heap_peak = tracemalloc.get_traced_memory()[1] if traced else None
        tracemalloc.stop()
        size = out.tell()
    return {
        "hands": count,
        "seconds": wall,
        "cpu_seconds": cpu,
        "rss_growth_mb": round(max(0, peak_rss - rss_before) / 1024, 1),
        "heap_peak_mb": None if heap_peak is None else round(heap_peak / 2**20, 1),
        "bytes": size,
    }


def _formatting(env: dict[str, str], hands: int, hero: int) -> dict[str, Any]:
    """Formatting alone, beside pokerkit: the first ``hands`` hands loaded (not timed), then
    each format's ``hand()`` timed on them; pokerkit loads our staff PHH of the same hands
    with ``HandHistory.loads`` (not timed), then its ``dumps()`` is timed."""
    django_setup(env)
    import warnings

    from pokerkit import HandHistory

    from handhistory.exports import FORMATS
    from handhistory.exports.records import STAFF, Viewer, hand_records

    records = hand_records(range(1, hands + 1))
    ours: dict[str, float] = {}
    for name, fmt in FORMATS.items():
        for viewer, who in (("player", Viewer(user_id=hero)), ("staff", STAFF)):
            cpu = time.process_time()
            for record in records:
                fmt.hand(record, who)
            ours[f"{name}/{viewer}"] = round(len(records) / (time.process_time() - cpu), 1)
    texts = [FORMATS["phh"].hand(record, STAFF) for record in records]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        histories = [HandHistory.loads(text) for text in texts]
        wall, cpu = time.perf_counter(), time.process_time()
        for hh in histories:
            hh.dumps()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "hands": len(records),
        "pokerkit_dumps": {
            "hands_per_s": round(len(texts) / wall, 1),
            "cpu_hands_per_s": round(len(texts) / cpu, 1),
        },
        "ours_cpu_hands_per_s": ours,
    }


def _formats(env: dict[str, str]) -> list[str]:
    """Every format the exports offer (a format added later is measured without a change)."""
    return in_fresh_process(_format_names, env)  # type: ignore[no-any-return]  # the child process's answer comes back through JSON


def _format_names(env: dict[str, str]) -> list[str]:
    django_setup(env)
    from handhistory.exports import FORMATS

    return list(FORMATS)


def _sizes(hands: int) -> Iterator[int]:
    yield from sorted({min(10_000, hands), hands})


def run(
    hands: int = 100_000,
    pokerkit_hands: int = 2_000,
    json_path: Path | str | None = DEFAULT_JSON,
    seed: int = SEED,
) -> dict[str, Any]:
    """Generate the dataset, measure every format and pokerkit, print and write figures."""
    url = server_url()
    env = bench_env(recreate_database(url, BENCH_DB))
    try:
        migrate = manage(env, "migrate", "--noinput")
        if migrate.returncode != 0:
            raise SystemExit(f"migrate failed:\n{migrate.stderr}")
        data = _generate(env, hands, seed)
        print(
            f"dataset: {data['hands']:,} hands, {data['events']:,} events, {data['tables']} tables "
            f"{data['variants']}, generated in {data['seconds']} s; hash chains "
            f"{'verify' if data['chains_ok'] else 'DO NOT verify'}",
            flush=True,
        )
        derivation = _derive_all(env, hands)
        data["derivation"] = derivation
        print(
            f"derived (texts of every format, stored): {derivation['hands']:,} hands in "
            f"{derivation['seconds']} s by {derivation['processes']} processes, "
            f"{derivation['hands_per_s']:,} hands/s; per process "
            f"{derivation['cpu_hands_per_s_per_process']:,} hands/s (CPU), "
            f"{derivation['wall_hands_per_s_per_process']:,} (wall)",
            flush=True,
        )
        alone = in_fresh_process(_formatting, env, min(pokerkit_hands, hands), data["hero"])
        pokerkit = alone["pokerkit_dumps"]
        print(
            f"formatting alone, {alone['hands']:,} hands in memory (CPU hands/s): pokerkit "
            f"HandHistory.dumps {pokerkit['cpu_hands_per_s']:,}; ours "
            + ", ".join(
                f"{k} {v:,} ({v / pokerkit['cpu_hands_per_s']:.1f}x)"
                for k, v in alone["ours_cpu_hands_per_s"].items()
            ),
            flush=True,
        )
        rows = []
        for fmt in _formats(env):
            for viewer in ("player", "staff"):
                for size in _sizes(hands):
                    m = in_fresh_process(_export, env, fmt, viewer, data["hero"], size, False)
                    if viewer == "staff":
                        traced = in_fresh_process(
                            _export, env, fmt, viewer, data["hero"], size, True
                        )
                        m["heap_peak_mb"] = traced["heap_peak_mb"]
                    row = {
                        "format": fmt,
                        "viewer": viewer,
                        "hands": m["hands"],
                        "hands_per_s": round(m["hands"] / m["seconds"], 1),
                        "cpu_hands_per_s": round(m["hands"] / m["cpu_seconds"], 1),
                        "rss_growth_mb": m["rss_growth_mb"],
                        "heap_peak_mb": m["heap_peak_mb"],
                        "mb_written": round(m["bytes"] / 2**20, 1),
                        "vs_pokerkit_dumps": round(
                            m["hands"] / m["cpu_seconds"] / pokerkit["cpu_hands_per_s"], 2
                        ),
                    }
                    rows.append(row)
                    print(
                        f"  {fmt:<11} {viewer:<7} {row['hands']:>7,} hands: "
                        f"{row['hands_per_s']:>9,.1f} hands/s (CPU {row['cpu_hands_per_s']:>9,.1f}), "
                        f"{row['vs_pokerkit_dumps']:>5}x pokerkit, RSS +{row['rss_growth_mb']} MB, "
                        f"heap peak {row['heap_peak_mb']} MB",
                        flush=True,
                    )
    finally:
        drop_database(url, BENCH_DB)
    figures = {
        "benchmark": "exports",
        "dataset": data,
        "formatting_alone": alone,
        "exports": rows,
        "memory": "rss_growth_mb: peak RSS of the export's own process during the export above "
        "its RSS just before; heap_peak_mb: tracemalloc's peak of the Python heap during the "
        "same export run again under tracemalloc (staff only; that run is not timed)",
        "targets": {"hands_per_s": TARGET_HANDS_PER_S, "vs_pokerkit_dumps": TARGET_VS_POKERKIT},
        "met": all(
            r["hands_per_s"] >= TARGET_HANDS_PER_S and r["vs_pokerkit_dumps"] >= TARGET_VS_POKERKIT
            for r in rows
        ),
    }
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--pokerkit-hands", type=int, default=2_000)
    parser.add_argument("--json", default=str(DEFAULT_JSON))
    args = parser.parse_args(argv)
    run(args.hands, args.pokerkit_hands, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
