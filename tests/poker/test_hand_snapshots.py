"""The in-process hand snapshots (poker.hands): bounded, and safe when several threads of
one process (the ASGI server's thread pool, the simulated room's bot threads) remember
hands at once."""

from __future__ import annotations

import sys
import threading

from core.cache import BoundedCache
from poker import hands


def test_threads_remembering_hands_at_the_limit_never_fail(monkeypatch):
    monkeypatch.setattr(hands, "_SNAPSHOTS", BoundedCache(4))
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show
    errors: list[BaseException] = []

    def remember_many(offset: int) -> None:
        try:
            for i in range(20_000):
                hands.remember(offset + i, "head", None)  # type: ignore[arg-type]
        except BaseException as error:  # the assertion below reports it
            errors.append(error)

    threads = [threading.Thread(target=remember_many, args=(n * 1_000_000,)) for n in range(8)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(before)
    assert not errors, errors[:3]
    assert len(hands._SNAPSHOTS) <= 4
