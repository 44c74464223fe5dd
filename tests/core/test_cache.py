"""core.cache.BoundedCache: bounded, first in first out, and safe under threads."""

from __future__ import annotations

import copy

import pytest

from core.cache import BoundedCache
from tests.support.threads import errors_in_threads


def test_a_full_cache_drops_its_oldest_entry_for_a_new_key():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert "a" not in cache
    assert dict(cache.items()) == {"b": 2, "c": 3}


def test_replacing_a_key_in_a_full_cache_evicts_nothing():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    assert dict(cache.items()) == {"a": 10, "b": 2}


def test_pop_and_get_of_a_missing_key_return_the_default():
    cache: BoundedCache[str, int] = BoundedCache(1)
    assert cache.pop("x") is None
    assert cache.get("x", 7) == 7
    cache.put("x", 1)
    assert cache.pop("x") == 1
    assert len(cache) == 0


def test_a_cache_needs_room_for_one_entry():
    with pytest.raises(ValueError):
        BoundedCache(0)


def test_a_deep_copy_is_an_independent_cache_with_the_same_limit():
    cache: BoundedCache[str, list[int]] = BoundedCache(3)
    cache.put("a", [1])
    twin = copy.deepcopy(cache)
    twin["a"].append(2)
    assert cache["a"] == [1]
    assert twin.limit == 3
    cache.update(twin)
    assert cache["a"] == [1, 2]


def test_threads_putting_and_popping_at_the_limit_never_fail_nor_overfill():
    cache: BoundedCache[int, int] = BoundedCache(4)

    def churn(n: int) -> None:
        offset = n * 1_000_000
        for i in range(10_000):
            cache.put(offset + i, i)
            cache.pop(offset + i - 2)

    errors = errors_in_threads(churn)
    assert not errors, errors[:3]
    assert len(cache) <= 4
