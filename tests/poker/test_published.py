"""What a committed command publishes for its table (poker.published): bounded, and safe
when several threads of one process (the ASGI server's thread pool, the simulated room's
bot threads) publish at once."""

from __future__ import annotations

from core.cache import BoundedCache
from poker import published
from tests.support.threads import errors_in_threads


def test_threads_publishing_at_the_limit_never_fail(monkeypatch):
    monkeypatch.setattr(published, "_PUBLISHED", BoundedCache(4))

    def publish_many(n: int) -> None:
        for i in range(20_000):
            basis = published.Published(version=i, public={}, player_ids=(), state=None)
            published.publish(n * 1_000_000 + i, basis)

    errors = errors_in_threads(publish_many)
    assert not errors, errors[:3]
    assert len(published._PUBLISHED) <= 4
