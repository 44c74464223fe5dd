"""Broadcasts sent outside an ASGI server (workers, sweepers, scripts) go through this
process's sender thread: after commit, in commit order, on the real Redis layer."""

import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from core.broadcast import broadcast_table, table_group

pytestmark = pytest.mark.django_db(transaction=True)


def test_broadcasts_from_outside_a_server_arrive_after_commit_in_commit_order():
    layer = get_channel_layer()
    assert type(layer).__name__ == "RedisChannelLayer"
    table_id = uuid.uuid4().int % 10**9
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(table_group(table_id), channel)
    with transaction.atomic():
        broadcast_table(table_id, {"type": "update", "version": 0})
        # nothing leaves before the commit...
    with transaction.atomic():
        broadcast_table(table_id, {"type": "update", "version": -1})
        transaction.set_rollback(True)  # ...and nothing of a rolled-back transaction
    for version in range(1, 30):
        with transaction.atomic():
            broadcast_table(table_id, {"type": "update", "version": version})
    received = [async_to_sync(layer.receive)(channel)["version"] for _ in range(30)]
    assert received == list(range(30))
