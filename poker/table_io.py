"""The table path's process memory: the working sets.

The rows themselves move in ``poker.storage`` (one interface, a PostgreSQL and an embedded
adapter); this module keeps what this process read or wrote of them, so that a table's next
command does not read them again: the working set (``take``), seats with their stake
balances, the running hand, its engine state and the stream heads, from this process's
cache when the last committed command on the table left it there, else loaded from the
database (the store's ``load``). A player action on a table whose working set this process
holds may run on ``take_unlocked``'s copy without the lock (the runner's warm strategy).
What readers of a version see is ``poker.published``.
"""

from __future__ import annotations

from typing import Any

from core.cache import BoundedCache
from poker.models import Table
from poker.storage import Working, table_store

__all__ = ["Working", "keep", "peek", "take", "take_unlocked"]


#: table id -> the working set its last command committed in this process left. The set's
#: table row says which table and version it is: the creation time tells a table apart
#: from an earlier one that had its id (a database reset or restore under a running
#: process), whose versions may coincide. A set in the cache is never changed: a command
#: takes it out first (:func:`take`, :func:`take_unlocked`) and puts back its own.
_CACHE_LIMIT = 4096
_CACHE: BoundedCache[int, Working] = BoundedCache(_CACHE_LIMIT)


def _identity(table: Table) -> tuple[Any, int]:
    """Which table (its creation time) at which version."""
    return table.created_at, table.version


def take(table: Table) -> Working:
    """The table's working set, under its row lock.

    From the cache when the entry was left by the command that produced the table's
    current version (every committed change goes through a command, and every command
    bumps the version, so nothing else wrote since); else loaded from the database. The
    entry is removed while a command works on it, and only a committed command puts it
    back (:func:`keep`), so a failed command never leaves half-changed objects behind.
    A stale stream head could not corrupt a stream anyway: its unique (stream, seq)
    refuses the write.
    """
    working = take_unlocked(table.pk)
    if working is not None and _identity(working.table) == _identity(table):
        working.table = table
        if working.hand is not None:
            working.hand.table = table
        return working
    return table_store().load(table)


def take_unlocked(table_id: int) -> Working | None:
    """This process's working set of the table, taken out of the cache WITHOUT the lock:
    it is current unless another process committed since. A command that starts from it
    therefore proves it current before anything it does counts: the store's ``relock``
    when it needs the database, or the version guard of the store's ``write``."""
    return _CACHE.pop(table_id)


def keep(working: Working) -> None:
    """Leaves the working set of a committed command for the table's next command."""
    _CACHE.put(working.table.pk, working)


def peek(table_id: int) -> Working | None:
    """The working set the last command committed in THIS process left, without any check
    against the database: current only for a caller that is the table's one writer (the
    benchmark's bots). Never use it to decide anything in a command."""
    return _CACHE.get(table_id)
