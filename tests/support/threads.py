"""Running one function in many threads that switch as often as possible, so races show."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def errors_in_threads(work: Callable[[int], None], *, threads: int = 8) -> list[BaseException]:
    """Runs ``work(n)`` in ``threads`` threads (n = 0, 1, ...); the exceptions they raised."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            work(n)
        except BaseException as error:  # the caller's assertion reports it
            errors.append(error)

    started = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    try:
        for t in started:
            t.start()
        for t in started:
            t.join()
    finally:
        sys.setswitchinterval(before)
    return errors


def concurrently(*calls: Callable[[], Any]) -> list[Any]:
    """Runs the calls in threads released together; returns their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:  # surfaced by the assertions below
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for i, t in enumerate(threads):
        t.join(timeout=60)
        if t.is_alive():  # a hung call fails the caller's assertion instead of passing as None
            results[i] = TimeoutError(f"call {i} still running after 60 s")
    return results


def at_once(count: int, work: Callable[[], Any]) -> list[Any]:
    """Runs ``work`` in ``count`` threads released together; their results (or exceptions)."""
    return concurrently(*[work] * count)


def race(work: Callable[[], object], workers: int = 2) -> list[BaseException]:
    """Runs ``work`` in ``workers`` threads released together; returns what they raised."""
    return [r for r in at_once(workers, work) if isinstance(r, BaseException)]


def clone(client: Any) -> Any:
    """A second HTTP client with the same credentials (one per thread)."""
    from rest_framework.test import APIClient

    twin = APIClient()
    twin.credentials(**client._credentials)
    twin.user = client.user
    return twin
