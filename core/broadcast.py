"""The one place that broadcasts: after commit, through the channel layer.

Nothing is sent before the transaction that produced it commits, so a client can never
see an event that a rollback later erased. Only PUBLIC payloads go to a table's group;
private parts (hole cards, your legal actions) are fetched per connection.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    """The channel-layer group of everyone watching a table."""
    return f"table-{table_id}"


def broadcast_table(table_id: int, message: dict[str, Any]) -> None:
    """Sends ``message`` to the table's group once the current transaction commits."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(table_group(table_id), message)
        except Exception:  # a broadcast failure must never undo a committed command
            logger.exception("broadcast failed", extra={"table": table_id})

    transaction.on_commit(send)
