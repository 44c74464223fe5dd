"""Schemathesis hooks of tests/core/test_schemathesis.py (loaded by ``SCHEMATHESIS_HOOKS``).

Every command that moves money or seats a player takes an ``Idempotency-Key``, and the same
key with another body is refused 409 ``idempotency_key_reused``. The fuzzer draws few
distinct valid keys (its coverage phase, one), so after an operation's first success every
later request of it was refused 409 before its body was read: a body the API mishandled (a
deposit limit without ``amount``) went unseen. A valid key is made fresh for each request;
a key the schema may refuse (empty, blank, longer than the shortest limit: the table
commands' 128, ``core.idempotency``) is sent as drawn.
"""

from __future__ import annotations

import uuid
from typing import Any

import schemathesis

HEADER = "Idempotency-Key"
MAX_LENGTH = 128


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    key = (case.headers or {}).get(HEADER)
    if isinstance(key, str) and key.strip() and len(key) <= MAX_LENGTH:
        case.headers[HEADER] = uuid.uuid4().hex
