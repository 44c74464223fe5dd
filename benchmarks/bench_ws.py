"""Live table WebSocket: actions/s and act -> update fan-out latency, end to end.

Real servers (``--workers`` uvicorn processes on ``config.asgi:application``, each on its
own port; a table's sockets all go to one of them, as a load balancer hashing the table id
would route them, so each table's working set stays in one process) run on a
throwaway PostgreSQL database (``bench_ws``) and the real Redis channel layer under a
unique ``CHANNEL_PREFIX`` (so nothing mixes with other users of the same Redis). Tables
of 6 funded bots are created, each bot with a token; then one WebSocket client per bot
(the ``websockets`` library, on 127.0.0.1, in ``--clients`` processes) plays: the bot
whose ``private`` frame carries legal actions sends an ``act``.

Latency of an action = from sending the ``act`` to the moment the ``update`` of the
version it produced has reached EVERY other seat of the table (all 6 bots of a table
live in one client process, so one clock measures it). Bounded in time and count: it
plays for ``--seconds``, stops by itself, and a hard deadline kills everything.
Afterwards ``verify_event_store`` and ``ledger_audit`` must pass.

Two runs: the bots act the moment it is their turn (saturated: what the service sustains
at most), then they think like players, 0.5-1.5 s (paced: about 100 actions/s offered;
the latency target is for a load the service sustains).

Usage: python -m benchmarks.bench_ws [--tables N] [--seconds S] [--workers N]
       [--clients N] [--think-ms MS] [--json PATH]   (through scripts/with_services.py or `make bench`)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
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
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "ws.json"
#: ``make bench-compare`` gives its runs their own names (BENCH_DB_SUFFIX), so a `make bench`
#: elsewhere on the same server never drops the database under them.
BENCH_DB = "bench_ws" + os.environ.get("BENCH_DB_SUFFIX", "")
BOTS_PER_TABLE = 6
#: The first seconds are played but not measured: every server process then loads each of
#: its tables from the database once (cold caches, statements not yet prepared), a burst
#: a steady state never sees. Their p99 is reported apart (``p99_with_warmup_ms``).
WARMUP_S = 3.0
#: Server processes. Each runs its commands' database work one at a time (Channels'
#: thread-sensitive sync thread) and waits on PostgreSQL between statements; two per core
#: overlap that waiting.
SERVERS = 2 * (os.cpu_count() or 1)
#: Extra time beyond --seconds after which every process is killed, whatever happens.
HARD_DEADLINE_S = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- setup (in a child process with Django) ------------------------------------------------------


def _setup(env: dict[str, str], tables: int) -> list[list[str]]:
    """Creates ``tables`` tables of 6 seated, funded bots; returns per table the bots'
    tokens in seat order."""
    django_setup(env)
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from handhistory.store import Actor
    from ledger.models import AccountKind
    from ledger.services import ledger_account_open, ledger_transfer
    from poker import money
    from poker.commands.seating import table_create, table_sit

    issuer = ledger_account_open(
        kind=AccountKind.BONUS, owner_ref="bench-ws", currency="CHIPS", must_not_overdraw=False
    )
    user_model = get_user_model()
    out = []
    for t in range(tables):
        table = table_create(
            name=f"ws-{t}",
            variant="NT",
            small_blind=50,
            big_blind=100,
            min_buy_in=2_000,
            max_buy_in=10_000_000,
            max_seats=BOTS_PER_TABLE,
            action_seconds=600,
        )
        tokens = []
        for p in range(BOTS_PER_TABLE):
            user = user_model.objects.create_user(username=f"wsbot-{t}-{p}", password=None)
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
                buy_in=10_000_000,
                key=f"sit-{t}-{p}",
                actor=Actor(kind="player", user_id=user.pk),
            )
            tokens.append(Token.objects.create(user=user).key)
        out.append([str(table.pk), *tokens])
    return out


def _setup_entry(env: dict[str, str], tables: int, out: Any) -> None:
    try:
        out.put(_setup(env, tables))
    except BaseException as exc:  # the parent must not wait for a result that never comes
        out.put(RuntimeError(f"setup failed: {exc!r}"))
        raise


def _get(queue: Any, procs: list[Any], timeout: float) -> Any:
    """The next result from ``queue``; fails fast when a child died without sending one."""
    import queue as queues

    deadline = time.monotonic() + timeout
    while True:
        try:
            item = queue.get(timeout=1.0)
        except queues.Empty:
            if time.monotonic() > deadline:
                raise SystemExit(f"no result within {timeout:.0f} s") from None
            dead = [p for p in procs if not p.is_alive() and p.exitcode not in (0, None)]
            if dead:
                raise SystemExit(f"a child process died (exit code {dead[0].exitcode})") from None
            continue
        if isinstance(item, BaseException):
            raise SystemExit(str(item))
        return item


# --- the bots (asyncio, in client processes) ----------------------------------------------------


class _Table:
    """One table's bots and its measurements (all in one process: one clock)."""

    def __init__(self, table_id: int, seats: int) -> None:
        self.table_id = table_id
        self.seats = seats
        self.sent: dict[str, float] = {}  # act key -> send time
        self.acts: dict[int, float] = {}  # version an act produced -> its send time
        self.arrivals: dict[int, dict[int, float]] = {}  # version -> bot -> arrival time
        self.actor_of: dict[int, int] = {}  # version -> the bot that acted
        self.latencies: list[tuple[float, float]] = []  # (act sent at, latency)
        self.ack_latencies: list[tuple[float, float]] = []

    def arrived(self, version: int, bot: int, now: float) -> None:
        self.arrivals.setdefault(version, {})[bot] = now
        self._settle(version)

    def acked(self, version: int, bot: int, key: str, now: float) -> None:
        self.acts[version] = self.sent.pop(key)
        self.ack_latencies.append((self.acts[version], now - self.acts[version]))
        self.actor_of[version] = bot
        self._settle(version)

    def _settle(self, version: int) -> None:
        if version not in self.acts:
            return
        others = {
            b: t for b, t in self.arrivals.get(version, {}).items() if b != self.actor_of[version]
        }
        if len(others) == self.seats - 1:
            sent = self.acts.pop(version)
            self.latencies.append((sent, max(others.values()) - sent))
            self.arrivals.pop(version, None)
            self.actor_of.pop(version, None)


async def _bot(
    urls: list[str],
    table: _Table,
    index: int,
    token: str,
    go: asyncio.Event,
    stop_at: list[float],
    stats: dict[str, int],
    samples: dict[str, str],
    rng: random.Random,
    think_s: float,
) -> None:
    import websockets

    version = -1
    you: dict[str, Any] | None = None
    acted = -1
    counter = 0
    url = urls[table.table_id % len(urls)]  # a table's sockets all go to one server
    async with websockets.connect(
        f"{url}/ws/tables/{table.table_id}/?token={token}&device=bench", max_size=2**20
    ) as ws:

        async def maybe_act() -> None:
            nonlocal acted, counter
            if not go.is_set() or time.perf_counter() >= stop_at[0]:
                return
            legal = you.get("legal_actions") if you else None
            if legal is None or acted >= version:
                return
            acted = version
            actions = legal["actions"]
            roll = rng.random()
            amount = None
            if "check" in actions:
                action = "bet" if roll < 0.1 and "bet" in actions else "check"
            else:
                action = "fold" if roll < 0.25 else "call"
            if action == "bet":
                amount = legal["min_to"]
            if think_s:  # a player thinks (0.5x to 1.5x the mean) before deciding
                await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
                if time.perf_counter() >= stop_at[0]:
                    return
            counter += 1
            key = f"{index}-{counter}"
            table.sent[key] = time.perf_counter()
            await ws.send(
                json.dumps(
                    {
                        "type": "act",
                        "action": action,
                        "amount": amount,
                        "version": version,
                        "key": key,
                    }
                )
            )
            stats["sent"] += 1

        async def on_go() -> None:
            await go.wait()
            await maybe_act()

        starter = asyncio.create_task(on_go())
        try:
            async for raw in ws:
                now = time.perf_counter()
                frame = json.loads(raw)
                stats["frames"] += 1
                kind = frame["type"]
                if kind == "update":
                    if frame["version"] != version + 1 and version >= 0:
                        stats["gaps"] += 1
                    version = frame["version"]
                    table.arrived(version, index, now)
                elif kind == "snapshot":
                    if version >= 0:
                        stats["snapshots"] += 1
                    version = frame["version"]
                    you = frame["view"]["you"]
                    table.arrived(version, index, now)
                    await maybe_act()
                elif kind == "private":
                    you = frame["you"]
                    await maybe_act()
                elif kind == "ack":
                    table.acked(frame["result"]["version"], index, frame["key"], now)
                elif kind == "error":
                    stats["errors"] += 1
                    samples.setdefault("error_sample", f"{frame['code']}: {frame['message']}")
                    table.sent.pop(frame.get("key", ""), None)
                if now >= stop_at[0] + 2.0:
                    break
        finally:
            starter.cancel()


async def _clients(
    urls: list[str],
    tables: list[list[str]],
    seconds: float,
    ready: Any,
    go_event: Any,
    seed: int,
    think_s: float,
) -> dict[str, Any]:
    rng = random.Random(seed)
    go = asyncio.Event()
    stop_at = [float("inf")]
    stats = {"sent": 0, "frames": 0, "gaps": 0, "snapshots": 0, "errors": 0}
    samples: dict[str, str] = {}
    states = [_Table(int(t[0]), len(t) - 1) for t in tables]
    # Open every socket first, then start together.
    tasks = []
    for state, row in zip(states, tables, strict=True):
        for index, token in enumerate(row[1:]):
            tasks.append(
                asyncio.create_task(
                    _bot(urls, state, index, token, go, stop_at, stats, samples, rng, think_s)
                )
            )
    await asyncio.sleep(0)
    # Wait until every bot has its snapshot (= has connected) or failed.
    deadline = time.perf_counter() + 60
    while stats["frames"] < len(tasks) and time.perf_counter() < deadline:
        if any(t.done() for t in tasks):
            break
        await asyncio.sleep(0.05)
    connected = stats["frames"]
    ready.put(connected)
    await asyncio.get_running_loop().run_in_executor(None, go_event.wait)
    started = time.perf_counter()
    stop_at[0] = started + seconds
    go.set()
    done, pending = await asyncio.wait(tasks, timeout=seconds + 15)
    for task in pending:
        task.cancel()
    failures = [t.exception() for t in done if not t.cancelled() and t.exception()]
    with contextlib.suppress(Exception):
        await asyncio.gather(*pending, return_exceptions=True)
    return {
        # Relative to the start: acts sent in the warm-up are told apart by the caller.
        "latencies": [(at - started, x) for s in states for at, x in s.latencies],
        "ack_latencies": [(at - started, x) for s in states for at, x in s.ack_latencies],
        "stats": stats,
        "samples": samples,
        "connected": connected,
        "failures": [repr(f)[:200] for f in failures[:3]],
        "failed": len(failures),
    }


def _client_entry(
    urls: list[str],
    tables: list[list[str]],
    seconds: float,
    ready: Any,
    go: Any,
    seed: int,
    think_s: float,
    out: Any,
) -> None:
    out.put(asyncio.run(_clients(urls, tables, seconds, ready, go, seed, think_s)))


# --- the run ------------------------------------------------------------------------------------


def _start_server(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--log-level",
            "warning",
            "--ws-max-size",
            "65536",
            "--ws-per-message-deflate",
            "false",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server exited during start-up")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    _stop_server(proc)
    raise SystemExit("the server did not come up within 60 s")


def _stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


#: The bots' mean think time in the paced run: 100 tables then offer about 100 actions/s,
#: a load the table service sustains (the saturated run measures what it can do at most).
PACED_THINK_MS = 1000.0


def run(
    tables: int = 100,
    seconds: float = 60.0,
    workers: int = SERVERS,
    clients: int = 1,
    json_path: Path | str | None = DEFAULT_JSON,
) -> dict[str, Any]:
    """`make bench`: the bots at full speed (what the service sustains at most, for half
    the time), then thinking like players (the latency target's load, the full time)."""
    figures = {
        "saturated": run_once(tables, seconds / 2, workers, clients, think_ms=0.0),
        "paced": run_once(tables, seconds, workers, clients, think_ms=PACED_THINK_MS),
    }
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return figures


def run_once(
    tables: int = 100,
    seconds: float = 60.0,
    workers: int = SERVERS,
    clients: int = 1,
    json_path: Path | str | None = None,
    think_ms: float = 0.0,
) -> dict[str, Any]:
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("bench_ws needs Redis: run it through scripts/with_services.py.")
    url = server_url()
    env = bench_env(recreate_database(url, BENCH_DB))
    prefix = f"benchws{uuid.uuid4().hex[:8]}"
    env.update(
        REDIS_URL=os.environ["REDIS_URL"],
        CHANNEL_PREFIX=prefix,
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    ctx = mp.get_context("spawn")
    servers: list[subprocess.Popen[bytes]] = []
    procs: list[Any] = []
    setup = None
    try:
        migrate = manage(env, "migrate", "--noinput")
        if migrate.returncode != 0:
            raise SystemExit(f"migrate failed:\n{migrate.stderr}")
        setup_started = time.perf_counter()
        out = ctx.Queue()
        setup = ctx.Process(target=_setup_entry, args=(env, tables, out))
        setup.start()
        rows = _get(out, [setup], 600)
        setup.join()
        setup_s = time.perf_counter() - setup_started
        ports = [_free_port() for _ in range(workers)]
        servers = [_start_server(env, port) for port in ports]
        urls = [f"ws://127.0.0.1:{port}" for port in ports]
        ready, go, results = ctx.Queue(), ctx.Event(), ctx.Queue()
        chunks = [rows[i::clients] for i in range(clients) if rows[i::clients]]
        procs = [
            ctx.Process(
                target=_client_entry,
                args=(urls, chunk, seconds, ready, go, i, think_ms / 1000, results),
            )
            for i, chunk in enumerate(chunks)
        ]
        for p in procs:
            p.start()
        connected = sum(_get(ready, procs, 120) for _ in procs)
        started = time.perf_counter()
        go.set()
        outcomes = [_get(results, procs, seconds + HARD_DEADLINE_S) for _ in procs]
        elapsed = min(time.perf_counter() - started, seconds)
        for p in procs:
            p.join(timeout=10)
        for server in servers:
            _stop_server(server)
        servers = []
        verify = manage(env, "verify_event_store")
        audit = manage(env, "ledger_audit")
    finally:
        for p in [*procs, *([setup] if setup is not None else [])]:
            if p.is_alive():
                p.kill()
        for server in servers:
            _stop_server(server)
        _flush_prefix(prefix)
        drop_database(url, BENCH_DB)
    every = sorted(x for o in outcomes for _, x in o["latencies"])
    latencies = sorted(x for o in outcomes for at, x in o["latencies"] if at >= WARMUP_S)
    acks = sorted(x for o in outcomes for at, x in o["ack_latencies"] if at >= WARMUP_S)
    stats: dict[str, int] = {}
    for o in outcomes:
        for k, v in o["stats"].items():
            stats[k] = stats.get(k, 0) + v
    actions = len(latencies)
    figures = {
        "tables": tables,
        "bots_per_table": BOTS_PER_TABLE,
        "server_workers": workers,
        "think_ms_mean": think_ms,
        "client_processes": len(procs),
        "connections": connected,
        "seconds": round(elapsed, 2),
        "setup_seconds": round(setup_s, 1),
        "actions": actions,
        "actions_per_s": round(actions / (elapsed - WARMUP_S), 1) if elapsed > WARMUP_S else 0.0,
        "p50_ms": round(statistics.median(latencies) * 1000, 2) if latencies else None,
        "p99_ms": round(latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000, 2)
        if latencies
        else None,
        "max_ms": round(latencies[-1] * 1000, 2) if latencies else None,
        "warmup_s": WARMUP_S,
        "p99_with_warmup_ms": round(every[max(0, int(len(every) * 0.99) - 1)] * 1000, 2)
        if every
        else None,
        "ack_p50_ms": round(statistics.median(acks) * 1000, 2) if acks else None,
        "ack_p99_ms": round(acks[max(0, int(len(acks) * 0.99) - 1)] * 1000, 2) if acks else None,
        "frames_received": stats.get("frames", 0),
        "frames_per_s": round(stats.get("frames", 0) / elapsed, 1) if elapsed else 0.0,
        "acts_sent": stats.get("sent", 0),
        "errors": stats.get("errors", 0),
        "error_sample": next(
            (o["samples"]["error_sample"] for o in outcomes if "error_sample" in o["samples"]), None
        ),
        "version_gaps_seen_by_clients": stats.get("gaps", 0),
        "resync_snapshots": stats.get("snapshots", 0),
        "client_failures": sum(o["failed"] for o in outcomes),
        "failure_sample": next((o["failures"] for o in outcomes if o["failures"]), []),
        "verify_event_store_ok": verify.returncode == 0,
        "ledger_audit_ok": audit.returncode == 0,
        "latency": "act sent -> update of its version received by every other seat",
    }
    print(
        f"ws: {figures['tables']} tables x 6 bots ({connected} sockets, {workers} server workers, "
        f"think {think_ms:.0f} ms): "
        f"{figures['actions_per_s']} actions/s, act->all-seats p50 {figures['p50_ms']} ms, "
        f"p99 {figures['p99_ms']} ms (with the {WARMUP_S:.0f} s warm-up {figures['p99_with_warmup_ms']} ms; "
        f"act->ack p50 {figures['ack_p50_ms']} ms); {figures['frames_per_s']} frames/s; errors "
        f"{figures['errors']}, gaps {figures['version_gaps_seen_by_clients']}, client failures "
        f"{figures['client_failures']}; verify ok={figures['verify_event_store_ok']} audit "
        f"ok={figures['ledger_audit_ok']}"
    )
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return figures


def _flush_prefix(prefix: str) -> None:
    """Removes the run's channel-layer and cache keys from Redis."""
    try:
        import redis

        client = redis.Redis.from_url(os.environ["REDIS_URL"])
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        for start in range(0, len(keys), 1000):
            client.delete(*keys[start : start + 1000])
    except Exception as exc:  # cleanup is best effort; the keys expire anyway
        print(f"(could not clean Redis keys {prefix}*: {exc})")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=SERVERS, help="server processes")
    parser.add_argument("--clients", type=int, default=1, help="bot client processes")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help="one run with this mean think time (default: saturated, then paced)",
    )
    parser.add_argument("--json", default=str(DEFAULT_JSON))
    args = parser.parse_args(argv)
    if args.think_ms is None:
        run(args.tables, args.seconds, args.workers, args.clients, args.json)
    else:
        run_once(args.tables, args.seconds, args.workers, args.clients, args.json, args.think_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
