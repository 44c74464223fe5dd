"""Broadcasts sent outside an ASGI server (workers, sweepers, scripts) go through this
process's sender thread: after commit, in commit order, on the real Redis layer."""

import asyncio
import uuid

import pytest
from channels.layers import get_channel_layer
from django.db import connection, transaction

from core.broadcast import broadcast_table, table_group

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _commit_broadcasts(table_id: int) -> None:
    """Plain thread code, as in a Celery worker: 0 committed, -1 rolled back, 1..29."""
    with transaction.atomic():
        broadcast_table(table_id, {"type": "update", "version": 0})
    with transaction.atomic():
        broadcast_table(table_id, {"type": "update", "version": -1})
        transaction.set_rollback(True)
    for version in range(1, 30):
        with transaction.atomic():
            broadcast_table(table_id, {"type": "update", "version": version})
    connection.close()  # this thread's own connection, or the test database stays in use


async def test_broadcasts_from_outside_a_server_arrive_after_commit_in_commit_order():
    layer = get_channel_layer()
    assert type(layer).__name__ == "RedisPubSubChannelLayer"
    table_id = uuid.uuid4().int % 10**9
    channel = await layer.new_channel()
    await layer.group_add(table_group(table_id), channel)
    await asyncio.to_thread(_commit_broadcasts, table_id)
    received = [(await asyncio.wait_for(layer.receive(channel), 5))["version"] for _ in range(30)]
    assert received == list(range(30))
    with pytest.raises(TimeoutError):  # and the rolled-back one never comes
        await asyncio.wait_for(layer.receive(channel), 0.5)
