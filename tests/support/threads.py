"""Running one function in many threads that switch as often as possible, so races show."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable


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
