"""The one place that broadcasts: after commit, through the channel layer.

Nothing is sent before the transaction that produced it commits, so a client can never
see an event that a rollback later erased. Only PUBLIC payloads go to a table's group;
private parts (hole cards, your legal actions) are fetched per connection.

Where the send runs:

* In a thread of an ASGI server (a REST view or a WebSocket command, run through
  asgiref's ``sync_to_async``), on the server's own event loop (``async_to_sync`` hands it
  over), where the in-memory layer's consumers also live.
* Anywhere else (a Celery worker, the sweeper, a script, the benchmarks), on one event
  loop thread per process that sends in commit order without making the command wait.
  ``async_to_sync`` there would build a fresh event loop per message, and with Redis a
  fresh connection: about 2 ms of CPU per broadcast. A message still queued when the
  process dies is lost; clients then fill the gap from the update log (``resync``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    """The channel-layer group of everyone watching a table."""
    return f"table-{table_id}"


#: A send that has not gone out by then is given up (and logged): a hung layer must not
#: hold a committed command's reply.
SEND_TIMEOUT_S = 3.0


async def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    try:
        await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT_S)
    except Exception:  # a broadcast failure must never undo a committed command
        logger.exception("broadcast failed", extra={"group": group})


class _Sender:
    """This process's event loop thread for broadcasts sent outside an ASGI server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[Any, str, dict[str, Any]]] | None = None

    def submit(self, layer: Any, group: str, message: dict[str, Any]) -> None:
        loop, queue = self._started()
        loop.call_soon_threadsafe(queue.put_nowait, (layer, group, message))

    def _started(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]:
        with self._lock:
            if self._pid != os.getpid() or self._loop is None or self._queue is None:
                ready = threading.Event()
                threading.Thread(
                    target=self._run, args=(ready,), name="broadcast", daemon=True
                ).start()
                ready.wait()
                self._pid = os.getpid()
            assert self._loop is not None and self._queue is not None
            return self._loop, self._queue

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop, self._queue = loop, asyncio.Queue()
        ready.set()
        loop.run_until_complete(self._drain(self._queue))

    @staticmethod
    async def _drain(queue: asyncio.Queue[tuple[Any, str, dict[str, Any]]]) -> None:
        while True:  # one at a time: a table's updates leave in commit order
            await _group_send(*await queue.get())


_SENDER = _Sender()


def _in_server_thread() -> bool:
    """Whether asgiref's ``sync_to_async`` runs this thread for a live event loop. asgiref
    never clears its thread-local once the call returns, so a thread that once ran such a
    call (a test calling ``async_to_sync`` from its main thread) still names that loop,
    closed: only a loop still running counts."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    return (
        getattr(local, "main_event_loop_pid", None) == os.getpid()
        and loop is not None
        and loop.is_running()
    )


def broadcast_table(table_id: int, message: dict[str, Any]) -> None:
    """Sends ``message`` to the table's group once the current transaction commits."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        group = table_group(table_id)
        if _in_server_thread():
            async_to_sync(_group_send)(layer, group, message)
        else:
            _SENDER.submit(layer, group, message)

    transaction.on_commit(send)
