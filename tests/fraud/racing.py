"""Two workers at once: real threads, each with its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection


def race(work: Callable[[], object], workers: int = 2) -> list[BaseException]:
    """Runs ``work`` in ``workers`` threads started together; returns what they raised."""
    barrier = threading.Barrier(workers)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait()
            work()
        except Exception as error:  # pragma: no cover - the caller's assertion shows it
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors
