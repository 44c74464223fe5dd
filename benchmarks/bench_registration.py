"""Registration of 10,000 players racing for one tournament: all land, once.

A throwaway PostgreSQL database (``bench_registration``, created, migrated and dropped on
the server of ``DATABASE_URL``) holds 10,000 funded players and a tournament of 10,000
seats. ``WORKERS`` processes (each its own connection, as production's workers are)
register their share of the players at once, every player twice (a retry, as a client
whose answer was lost sends again): the first lands, the second is refused
``already_registered`` and moves nothing. Registrations of one tournament serialise on
its row lock, so the figure is how many the tournament takes per second. After the race:
exactly one live entry per player, the prize pool and the house's fees hold exactly what
10,000 entries paid, and the ledger audit is clean.

Usage: ``python -m benchmarks.bench_registration [--players 10000] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import queue
import statistics
import sys
import time
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
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "registration.json"
BENCH_DB = "bench_registration"
WORKERS = 8
BUY_IN, FEE = 1_000, 100


def _setup(env: dict[str, str], players: int) -> tuple[int, list[int]]:
    """The tournament and ``players`` users holding 20.00 EUR each (one linked posting)."""
    django_setup(env)
    import uuid

    from django.contrib.auth import get_user_model

    from ledger.models import AccountKind
    from ledger.posting import TransferRequest
    from ledger.services import ledger_account_open, ledger_post_transfers
    from tournaments.services import tournament_create
    from wallet.services import player_account

    users = get_user_model()
    director = users.objects.create_superuser(username="bench-director", password=None)
    made = users.objects.bulk_create(
        [users(username=f"bench-{i}") for i in range(players)], batch_size=2_000
    )
    issuer = ledger_account_open(
        kind=AccountKind.BONUS, owner_ref="bench:issuer", currency="EUR", must_not_overdraw=False
    )
    requests = [
        TransferRequest(
            id=uuid.uuid4(), debit_account_id=issuer.pk,
            credit_account_id=player_account(user_id=u.pk, currency="EUR").pk,
            amount=2 * (BUY_IN + FEE), currency="EUR", code="test_grant",
        )
        for u in made
    ]  # fmt: skip
    for start in range(0, len(requests), 500):
        ledger_post_transfers(transfers=requests[start : start + 500])
    tournament = tournament_create(
        staff_user=director, key=uuid.uuid4(), name="Bench major", variant="NT",
        currency="EUR", buy_in=BUY_IN, fee=FEE, bounty=0, starting_stack=10_000,
        seats_per_table=9, min_players=2, max_players=players, start=None,
        levels=[{"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 10}], breaks=[],
        late_registration_levels=0, rebuy=None, add_on=None, guarantee=0, payouts=None,
        action_seconds=30,
    )  # fmt: skip
    return tournament.pk, [u.pk for u in made]


def _register(env: dict[str, str], tournament_id: int, ids: list[int], go: Any, out: Any) -> None:
    """Registers each of ``ids`` twice; (latencies of the first, codes of the retries)."""
    django_setup(env)
    from django.contrib.auth import get_user_model

    # The director's start is not under test: a full sit-and-go starts after the commit
    # that fills it; the bench counts registrations.
    import tournaments.services as services
    from core.errors import DomainError
    from tournaments.services import tournament_register

    services._when_full = None
    users = get_user_model().objects.in_bulk(ids)
    go.wait()
    latencies, refusals = [], []
    for pk in ids:
        began = time.perf_counter()
        tournament_register(tournament_id=tournament_id, player=users[pk])
        latencies.append(time.perf_counter() - began)
        try:
            tournament_register(tournament_id=tournament_id, player=users[pk])
        except DomainError as error:
            refusals.append(error.code)
        else:
            refusals.append("registered twice")
    out.put((latencies, refusals))


def _check(env: dict[str, str], tournament_id: int, players: int) -> dict[str, Any]:
    django_setup(env)
    from django.db.models import Count

    from ledger.models import Account, AccountKind
    from tournaments.models import Entry, Tournament

    tournament = Tournament.objects.get(pk=tournament_id)
    live = Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
    twice = live.values("player").annotate(n=Count("id")).filter(n__gt=1).count()
    pool = Account.objects.get(kind=AccountKind.TOURNAMENT_POOL, owner_ref=tournament.owner_ref)
    fees = Account.objects.get(kind=AccountKind.HOUSE_TOURNAMENT_FEES, currency="EUR")
    return {
        "entries": live.count(),
        "players_registered_twice": twice,
        "pool": pool.balance,
        "pool_expected": players * BUY_IN,
        "fees": fees.balance,
        "fees_expected": players * FEE,
    }


def _result(out: Any, processes: list[Any]) -> Any:
    """The next result on ``out``; fails (instead of waiting forever) once a process died
    without giving one."""
    while True:
        try:
            return out.get(timeout=1)
        except queue.Empty:
            if any(p.exitcode not in (None, 0) for p in processes):
                raise RuntimeError("a benchmark process failed (its traceback is above)") from None


def run(players: int = 10_000, json_path: Path = DEFAULT_JSON) -> dict[str, Any]:
    url = server_url()
    db_url = recreate_database(url, BENCH_DB)
    env = bench_env(db_url)
    try:
        migrated = manage(env, "migrate", "--noinput", "-v0")
        assert migrated.returncode == 0, migrated.stderr
        tournament_id, ids = in_fresh_process(_setup, env, players)
        ctx = mp.get_context("spawn")
        go, out = ctx.Event(), ctx.Queue()
        shares = [ids[i::WORKERS] for i in range(WORKERS)]
        workers = [
            ctx.Process(target=_register, args=(env, tournament_id, share, go, out))
            for share in shares
        ]
        for worker in workers:
            worker.start()
        time.sleep(5)  # every worker set up and waiting at the gate
        began = time.perf_counter()
        go.set()
        results = [_result(out, workers) for _ in workers]
        wall = time.perf_counter() - began
        for worker in workers:
            worker.join()
        latencies = sorted(x for lat, _ in results for x in lat)
        refusals = [code for _, codes in results for code in codes]
        checked = in_fresh_process(_check, env, tournament_id, players)
        audit = manage(env, "ledger_audit")
        figures = {
            "players": players,
            "workers": WORKERS,
            "wall_s": round(wall, 2),
            "registrations_per_s": round(players / wall, 1),
            "p50_ms": round(1000 * statistics.median(latencies), 2),
            "p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 2),
            "retries_refused_already_registered": refusals.count("already_registered"),
            **checked,
            "ledger_audit_clean": audit.returncode == 0,
        }
    finally:
        drop_database(url, BENCH_DB)
    ok = (
        figures["entries"] == players
        and figures["players_registered_twice"] == 0
        and figures["retries_refused_already_registered"] == players
        and figures["pool"] == figures["pool_expected"]
        and figures["fees"] == figures["fees_expected"]
        and figures["ledger_audit_clean"]
    )
    figures["all_landed_once"] = ok
    print(json.dumps(figures, indent=2))
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2))
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    return 0 if run(args.players, args.json)["all_landed_once"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
