"""A serving process holds at most its stated number of PostgreSQL connections
(``DB_POOL_MAX_SIZE``), however many requests arrive at once, and a request that finds
every connection busy for ``DB_POOL_TIMEOUT`` seconds is a typed 503, never a 500."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
import uuid
from collections import Counter

import psycopg
import pytest
from django.conf import settings
from django.db import OperationalError, connection
from psycopg_pool import ConnectionPool

from core.exceptions import map_exception
from tests.core.live_api import running_api

BURST = 200

_SEED_SCRIPT = """
from rest_framework.authtoken.models import Token
from core.services import user_register
player = user_register(username="burst-player", password="pw-Str0ng-enough!")
print(Token.objects.create(user=player).key)
"""


class _Sampler(threading.Thread):
    """Counts, until stopped, the connections whose ``application_name`` is ``name``;
    keeps the largest count seen."""

    def __init__(self, admin_url: str, name: str) -> None:
        super().__init__(daemon=True)
        self.admin_url, self.name = admin_url, name
        self.most = 0
        self.stopping = threading.Event()

    def count(self, conn: psycopg.Connection | None = None) -> int:
        if conn is None:
            with psycopg.connect(self.admin_url, autocommit=True) as fresh:
                return self.count(fresh)
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [self.name]
        ).fetchone()
        return int(row[0]) if row else 0

    def run(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self.stopping.is_set():
                self.most = max(self.most, self.count(conn))
                self.stopping.wait(0.01)


def _burst(base: str, token: str) -> Counter[tuple[int, str]]:
    """BURST requests released together, each reading the database (its token, the
    table list); (status, error code) of each answer."""
    answers: Counter[tuple[int, str]] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(BURST)

    def one() -> None:
        request = urllib.request.Request(
            f"{base}/api/v1/tables/", headers={"Authorization": f"Token {token}"}
        )
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = (response.status, "")
        except urllib.error.HTTPError as error:
            answer = (error.code, json.loads(error.read()).get("code", ""))
        except OSError as error:  # refused or reset: a failure of its own kind
            answer = (0, type(error).__name__)
        with lock:
            answers[answer] += 1

    threads = [threading.Thread(target=one) for _ in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a request of the burst never ended"
    return answers


@pytest.mark.slow
def test_a_burst_of_concurrent_requests_never_holds_more_connections_than_the_pool_size():
    with running_api("burst") as api:
        seeded = api.manage("shell", "-c", _SEED_SCRIPT)
        assert seeded.returncode == 0, seeded.stderr
        token = seeded.stdout.split()[-1]
        name = f"burst-{uuid.uuid4().hex[:12]}"
        api.env["DATABASE_URL"] += f"?application_name={name}"
        api.start()
        sampler = _Sampler(api.admin_url, name)
        sampler.start()
        try:
            answers = _burst(api.base, token)
            answers += _burst(api.base, token)  # a second burst reuses, never adds
        finally:
            sampler.stopping.set()
            sampler.join(timeout=10)
        after = sampler.count()
        api.stop()

    assert sampler.most > 0, "the sampler saw none of the server's connections"
    assert sampler.most <= settings.DB_POOL_MAX_SIZE, (sampler.most, answers)
    assert after <= settings.DB_POOL_MAX_SIZE, after
    assert set(answers) <= {(200, ""), (503, "database_busy")}, answers
    assert answers[(200, "")] > 0, answers


def test_an_exhausted_connection_pool_is_a_typed_503_with_a_retry_after(db):
    params = connection.get_connection_params()
    for django_only in ("context", "cursor_factory"):
        params.pop(django_only, None)
    with (
        ConnectionPool(kwargs=params, min_size=1, max_size=1, timeout=0.05) as pool,
        pool.connection(),
        pytest.raises(OperationalError) as raised,
        # Django opens its connections inside wrap_database_errors: the same
        # OperationalError (caused by the pool's timeout) a view would meet.
        connection.wrap_database_errors,
    ):
        pool.getconn()
    status, body = map_exception(raised.value) or (500, {})
    assert status == 503
    assert body["code"] == "database_busy"
    assert body["extra"]["retry_after_s"] >= 1
