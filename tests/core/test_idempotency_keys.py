"""One rule for what a client's idempotency key is (``core.idempotency.check_key``), on
every surface: the REST header, the table API, the WebSocket frames, the table commands.
The limit is the size of the column of the store that keeps the key."""

from __future__ import annotations

import json

import pytest

from core.errors import InvalidRequest
from core.idempotency import (
    REST_KEY_LENGTH,
    TABLE_KEY_LENGTH,
    IdempotencyKeyRequired,
    InvalidIdempotencyKey,
    check_key,
)
from core.models import IdempotencyRecord
from poker.models import TableCommand
from poker.ws_protocol import ProtocolError, parse_frame


def test_each_limit_is_the_size_of_the_column_that_keeps_the_keys():
    assert TABLE_KEY_LENGTH == TableCommand._meta.get_field("key").max_length == 128
    assert REST_KEY_LENGTH == IdempotencyRecord._meta.get_field("key").max_length == 255


@pytest.mark.parametrize("limit", [TABLE_KEY_LENGTH, REST_KEY_LENGTH])
def test_a_key_is_a_non_blank_string_up_to_the_limit_taken_as_sent(limit):
    for good in ("k", " k ", "k" * limit):
        assert check_key(good, limit=limit) == good
    for missing in (None, "", "   ", "\t\n"):
        with pytest.raises(IdempotencyKeyRequired) as err:
            check_key(missing, limit=limit)
        assert err.value.code == "idempotency_key_required"
    for bad in (123, ["k"], {"k": 1}, True, "k" * (limit + 1)):
        with pytest.raises(InvalidIdempotencyKey) as err:
            check_key(bad, limit=limit)
        assert err.value.code == "invalid_idempotency_key"
        assert err.value.extra == {"max": limit}


def test_a_surface_keeps_the_code_its_clients_already_see():
    with pytest.raises(InvalidRequest) as err:
        check_key("k" * 300, limit=REST_KEY_LENGTH, code="idempotency_key_too_long")
    assert err.value.code == "idempotency_key_too_long"


@pytest.mark.parametrize("blank", ["   ", "\t"])
def test_a_blank_key_is_refused_in_a_websocket_frame(blank):
    with pytest.raises(ProtocolError) as err:
        parse_frame(json.dumps({"type": "act", "action": "call", "key": blank}))
    assert err.value.code == "invalid" and err.value.extra == {"field": "key"}
    assert err.value.key is None


def test_a_key_at_the_limit_is_accepted_in_a_websocket_frame():
    key = "k" * TABLE_KEY_LENGTH
    assert parse_frame(json.dumps({"type": "act", "action": "call", "key": key})).key == key
