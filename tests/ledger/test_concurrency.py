"""Real threads on real PostgreSQL: no overdraft, no lost update, no deadlock, exactly once."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter

import pytest
from django.db import connection, transaction

from ledger.audit import ledger_audit
from ledger.errors import InsufficientFunds, TransferConflict
from ledger.models import Account, Transfer
from ledger.services import ledger_post_transfers, ledger_post_transfers_in_transaction
from tests.support.ledger import reload, transfer

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("ledger-concurrency"),
]


def _run_threads(count, target):
    barrier = threading.Barrier(count)
    outcomes: list[object] = []
    lock = threading.Lock()

    def worker(index):
        try:
            barrier.wait()
            result = target(index)
        except Exception as exc:
            result = exc
        finally:
            connection.close()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return outcomes


def test_fifty_concurrent_withdrawals_of_30_from_1000_exactly_33_succeed(account):
    player, payout = account(1000), account()
    outcomes = _run_threads(
        50, lambda i: ledger_post_transfers(transfers=[transfer(player, payout, 30)])
    )
    kinds = Counter(type(o).__name__ for o in outcomes)
    assert kinds == {"Posting": 33, "InsufficientFunds": 17}
    assert (reload(player).balance, reload(payout).balance) == (10, 990)
    assert Transfer.objects.filter(debit_account=player).count() == 33
    assert ledger_audit().ok


def test_random_transfers_both_ways_between_20_accounts_never_deadlock_or_lose(account):
    accounts = [account(10_000) for _ in range(20)]
    ids = [a.pk for a in accounts]
    deadline = time.monotonic() + 3.0
    stats = Counter()

    def worker(index):
        rng = random.Random(index)
        while time.monotonic() < deadline:
            legs = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                debit, credit = rng.sample(accounts, 2)
                legs.append(transfer(debit, credit, rng.randint(1, 3_000)))
            try:
                ledger_post_transfers(transfers=legs)
                stats["ok"] += 1
            except InsufficientFunds:
                stats["refused"] += 1
        return "done"

    outcomes = _run_threads(8, worker)
    assert outcomes == ["done"] * 8, outcomes  # no deadlock or other error escaped
    assert stats["ok"] > 50
    balances = list(Account.objects.filter(pk__in=ids).values_list("balance", flat=True))
    assert sum(balances) == 20 * 10_000 and min(balances) >= 0
    report = ledger_audit()
    assert report.ok, report.render()


def test_the_same_transfer_id_from_ten_threads_posts_exactly_once(account):
    a, b = account(1000), account()
    leg = transfer(a, b, 100)
    outcomes = _run_threads(10, lambda i: ledger_post_transfers(transfers=[leg]))
    assert all(not isinstance(o, Exception) for o in outcomes), outcomes
    assert sorted(o.replayed for o in outcomes) == [False] + [True] * 9
    assert Transfer.objects.filter(pk=leg.id).count() == 1
    assert (reload(a).balance, reload(b).balance) == (900, 100)


def test_a_race_on_a_new_id_with_different_content_is_a_conflict_not_a_500(account):
    a, b, c, d = account(100), account(), account(100), account()
    shared = uuid.uuid4()
    first_inserted = threading.Event()
    release = threading.Event()

    def first():
        try:
            with transaction.atomic():
                ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 10, id=shared)])
                first_inserted.set()
                release.wait(10)
            return "committed"
        finally:
            connection.close()

    def second():
        try:
            first_inserted.wait(10)
            # Other accounts: no lock to wait on, so it reaches the insert and blocks on
            # the primary key until the first commits.
            return ledger_post_transfers(transfers=[transfer(c, d, 20, id=shared)])
        except TransferConflict as exc:
            return exc
        finally:
            connection.close()

    results: dict[str, object] = {}
    threads = [
        threading.Thread(target=lambda: results.__setitem__("first", first())),
        threading.Thread(target=lambda: results.__setitem__("second", second())),
    ]
    for t in threads:
        t.start()
    first_inserted.wait(10)
    time.sleep(0.5)
    release.set()
    for t in threads:
        t.join(30)
    assert results["first"] == "committed"
    assert isinstance(results["second"], TransferConflict)
    assert (reload(c).balance, reload(d).balance) == (100, 0)
    assert ledger_audit().ok


def test_a_race_on_a_new_id_in_the_caller_transaction_leaves_it_usable(account):
    a, b, c, d = account(100), account(), account(100), account()
    shared = uuid.uuid4()
    first_inserted = threading.Event()
    release = threading.Event()

    def first():
        try:
            with transaction.atomic():
                ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 10, id=shared)])
                first_inserted.set()
                release.wait(10)
        finally:
            connection.close()

    def second():
        try:
            first_inserted.wait(10)
            with transaction.atomic():
                try:
                    ledger_post_transfers_in_transaction(transfers=[transfer(c, d, 20, id=shared)])
                except TransferConflict:
                    ledger_post_transfers_in_transaction(transfers=[transfer(c, d, 5)])
                    return "recovered"
            return "posted"
        finally:
            connection.close()

    results: dict[str, object] = {}
    t1 = threading.Thread(target=first)
    t2 = threading.Thread(target=lambda: results.__setitem__("second", second()))
    t1.start()
    t2.start()
    first_inserted.wait(10)
    time.sleep(0.5)
    release.set()
    t1.join(30)
    t2.join(30)
    assert results["second"] == "recovered"
    assert (reload(c).balance, reload(d).balance) == (95, 5)
