"""The in-process hand snapshots (poker.hands): bounded, and safe when several threads of
one process (the ASGI server's thread pool, the simulated room's bot threads) remember
hands at once."""

from __future__ import annotations

from core.cache import BoundedCache
from poker import hands
from tests.support.threads import errors_in_threads


def test_threads_remembering_hands_at_the_limit_never_fail(monkeypatch):
    monkeypatch.setattr(hands, "_SNAPSHOTS", BoundedCache(4))

    def remember_many(n: int) -> None:
        for i in range(20_000):
            hands.remember(n * 1_000_000 + i, "head", None)  # type: ignore[arg-type]

    errors = errors_in_threads(remember_many)
    assert not errors, errors[:3]
    assert len(hands._SNAPSHOTS) <= 4
