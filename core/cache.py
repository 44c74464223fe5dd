"""The one bounded, thread-safe, process-local cache every in-memory cache of the project uses.

Several threads of one process touch these caches at once (the ASGI thread pool, the
simulated room's bot threads), so every operation holds the cache's lock: evicting the
oldest entry while another thread evicts it too would otherwise be a ``KeyError``. Eviction
is first-in first-out (insertion order; replacing a key keeps its place): the caches hold
what the last command of a table or hand left, which the next command of the same table
replaces, so recency of reads earns nothing over the cheaper FIFO.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator, MutableMapping
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(MutableMapping[K, V], Generic[K, V]):
    """At most ``limit`` entries; putting a new key into a full cache drops the oldest."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("A bounded cache holds at least one entry.")
        self.limit = limit
        self._data: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]  # narrower than dict's overloads on purpose: one signature
        # No lock: one dict lookup is atomic in CPython, and reads are the hot path (every
        # WebSocket frame sent, every warm command); the lock orders the writers.
        return self._data.get(key, default)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            if key not in self._data and len(self._data) >= self.limit:
                del self._data[next(iter(self._data))]
            self._data[key] = value

    def pop(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]  # narrower than dict's overloads on purpose: one signature
        """The entry removed, or ``default``: taking an entry out never raises."""
        with self._lock:
            return self._data.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    # The mapping protocol, so tests may read, plant and copy entries as with a dict.
    def __getitem__(self, key: K) -> V:
        with self._lock:
            return self._data[key]

    def __setitem__(self, key: K, value: V) -> None:
        self.put(key, value)

    def __delitem__(self, key: K) -> None:
        with self._lock:
            del self._data[key]

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def __deepcopy__(self, memo: dict[int, Any]) -> BoundedCache[K, V]:
        twin: BoundedCache[K, V] = BoundedCache(self.limit)
        with self._lock:
            twin._data = copy.deepcopy(self._data, memo)
        return twin
