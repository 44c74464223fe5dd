"""Who is still at the table: the live-table WebSockets of signed-in players, shared by
every ASGI process through the database (``TableSocket``), so the shot clock (in a worker)
sees sockets of any process.

A seat's player is *disconnected* when they had a socket for the table and now have none
live: each closed one is marked at once (a closed tab; a lost network is found by the
ASGI server's ping/pong, which closes the socket), and one whose process died stops being
refreshed and goes stale after ``STALE``. A player who never opened a socket for the
table (a bot playing over REST) is never disconnected. The shot clock sits a disconnected
player out at their first time-out (``poker.commands.play.table_timeout``).

Bounded: a player's rows at a table are replaced when they open a new socket there, and
rows closed or stale for longer than ``RETENTION`` are pruned (``presence_prune``).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from datetime import datetime, timedelta

from channels.db import database_sync_to_async
from django.db.models import Q
from django.utils import timezone

from poker.models import TableSocket

logger = logging.getLogger(__name__)

#: How often each process refreshes its open sockets.
REFRESH = timedelta(seconds=20)
#: A socket not refreshed for this long belongs to a process that died.
STALE = timedelta(seconds=60)
#: Closed or stale rows older than this are pruned (they still say "had a socket" until).
RETENTION = timedelta(days=1)


def _gone(now: datetime) -> Q:
    """Rows of sockets that are no longer open."""
    return Q(closed_at__isnull=False) | Q(seen_at__lt=now - STALE)


def presence_open(*, table_id: int, player_id: int, channel: str) -> None:
    """Records an open socket (replacing the player's gone ones at this table)."""
    now = timezone.now()
    TableSocket.objects.filter(Q(table_id=table_id, player_id=player_id) & _gone(now)).delete()
    TableSocket.objects.create(channel=channel, table_id=table_id, player_id=player_id, seen_at=now)


def presence_close(*, channel: str) -> None:
    """The socket went: the row stays, closed, to say the player had one."""
    TableSocket.objects.filter(channel=channel).update(closed_at=timezone.now())


def presence_refresh(*, channels: list[str]) -> None:
    """This process's sockets are still open."""
    TableSocket.objects.filter(channel__in=channels, closed_at__isnull=True).update(
        seen_at=timezone.now()
    )


def presence_disconnected(*, table_id: int, player_id: int) -> bool:
    """True when the player had a socket for the table and has none live now."""
    now = timezone.now()
    rows = TableSocket.objects.filter(table_id=table_id, player_id=player_id)
    return rows.exists() and not rows.exclude(_gone(now)).exists()


def presence_prune() -> int:
    """Deletes rows closed or stale for longer than ``RETENTION``; returns how many."""
    cutoff = timezone.now() - RETENTION
    deleted, _ = TableSocket.objects.filter(
        Q(closed_at__lt=cutoff) | Q(seen_at__lt=cutoff)
    ).delete()
    return deleted


_refresh = database_sync_to_async(presence_refresh)


class _Refresher:
    """Refreshes the open sockets of one event loop every ``REFRESH`` while there are any."""

    def __init__(self) -> None:
        self.channels: set[str] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, channel: str) -> None:
        self.channels.add(channel)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def discard(self, channel: str) -> None:
        self.channels.discard(channel)
        if not self.channels and self.task is not None:
            self.task.cancel()  # nobody left: a closing event loop finds nothing pending
            self.task = None

    async def _run(self) -> None:
        while self.channels:
            await asyncio.sleep(REFRESH.total_seconds())
            try:
                await _refresh(channels=sorted(self.channels))
            except Exception:
                # The next round tries again; a row goes stale only after STALE.
                logger.exception("presence refresh failed", extra={"sockets": len(self.channels)})


_REFRESHERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Refresher] = (
    weakref.WeakKeyDictionary()
)


def refresher() -> _Refresher:
    """This event loop's refresher."""
    loop = asyncio.get_running_loop()
    found = _REFRESHERS.get(loop)
    if found is None:
        found = _REFRESHERS[loop] = _Refresher()
    return found
