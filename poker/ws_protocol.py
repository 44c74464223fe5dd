"""Client frames of the live table WebSocket (docs/protocol.md): parsing and validation.

Pure functions, no I/O: a frame is checked completely (JSON, object, known ``type``, exact
field types, no unknown fields, size) BEFORE anything is called, so a malformed frame can
never reach a service. Errors carry the REST error shape and the frame's ``key`` when one
could be read, so the client can match the reply to its request.

>>> parse_frame('{"type": "act", "action": "call", "key": "c-1"}').action
'call'
>>> try:
...     parse_frame('{"type": "act", "action": "bet", "amount": "100", "key": "c-2"}')
... except ProtocolError as error:
...     print(error.frame())
{'type': 'error', 'code': 'invalid', 'message': 'amount must be an integer or null.', 'extra': {'field': 'amount'}, 'key': 'c-2'}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidRequest
from core.idempotency import TABLE_KEY_LENGTH, check_key

#: Frames larger than this (in UTF-8 bytes) are refused unread.
MAX_FRAME_BYTES = 4096
#: Device ids (``device`` query parameter, ``X-Device-Id``) are at most this long, as over REST.
MAX_DEVICE_ID_LENGTH = 128
#: Tokens are 40 hex characters; anything much longer is not a token.
MAX_TOKEN_LENGTH = 256


class ProtocolError(Exception):
    """A frame the server will not act on; becomes an ``error`` frame, connection stays open."""

    def __init__(
        self, message: str, *, code: str = "invalid", key: str | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.key = key
        self.extra = extra

    def frame(self) -> dict[str, Any]:
        """The ``error`` frame for this problem."""
        return error_frame(self.code, self.message, self.extra, key=self.key)


def error_frame(
    code: str, message: str, extra: dict[str, Any] | None = None, *, key: str | None = None
) -> dict[str, Any]:
    """``{"type": "error", "code", "message", "extra"}`` (+ ``key`` when the frame had one):
    the REST error body with a frame type."""
    frame: dict[str, Any] = {
        "type": "error",
        "code": code,
        "message": message,
        "extra": extra or {},
    }
    if key is not None:
        frame["key"] = key
    return frame


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """A validated client frame. Fields a frame type does not use stay None."""

    type: str
    key: str | None = None
    action: str | None = None
    amount: int | None = None
    version: int | None = None
    text: str | None = None
    from_version: int | None = None
    token: str | None = None


# Per frame type: (required fields, optional fields). ``key`` is required exactly where the
# frame causes a command (the idempotency key); elsewhere it is an optional echo tag.
_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "act": (frozenset({"action", "key"}), frozenset({"amount", "version"})),
    "sit_out": (frozenset({"key"}), frozenset()),
    "sit_in": (frozenset({"key"}), frozenset()),
    "chat": (frozenset({"text", "key"}), frozenset()),
    "resync": (frozenset({"from_version"}), frozenset({"key"})),
    "ping": (frozenset(), frozenset({"key"})),
    "auth": (frozenset({"token"}), frozenset({"key"})),
}

FRAME_TYPES = tuple(_FIELDS)


def _is_int(value: object) -> bool:
    # bool is an int subclass in Python; true/false are never amounts or versions.
    return type(value) is int


def parse_frame(text_data: str | None, bytes_data: bytes | None = None) -> Frame:
    """Validates one WebSocket message and returns it as a :class:`Frame`.

    Raises :class:`ProtocolError` with code ``frame_too_large``, ``malformed_frame``,
    ``unknown_type`` or ``invalid`` (wrong or missing field, unknown field).
    """
    if text_data is None:
        size = len(bytes_data or b"")
        if size > MAX_FRAME_BYTES:
            raise ProtocolError(
                f"Frames are at most {MAX_FRAME_BYTES} bytes.",
                code="frame_too_large",
                max_bytes=MAX_FRAME_BYTES,
            )
        raise ProtocolError("Frames must be JSON text, not binary.", code="malformed_frame")
    # A str of n characters is at least n UTF-8 bytes: skip encoding the obviously large.
    if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode("utf-8")) > MAX_FRAME_BYTES:
        raise ProtocolError(
            f"Frames are at most {MAX_FRAME_BYTES} bytes.",
            code="frame_too_large",
            max_bytes=MAX_FRAME_BYTES,
        )
    try:
        data = json.loads(text_data, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ProtocolError("Frames must be JSON objects.", code="malformed_frame") from None
    if not isinstance(data, dict):
        raise ProtocolError("Frames must be JSON objects.", code="malformed_frame")
    key = _key_of(data)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise ProtocolError(
            f"Unknown frame type {kind!r}; expected one of {', '.join(FRAME_TYPES)}.",
            code="unknown_type",
            key=key,
            types=list(FRAME_TYPES),
        )
    required, optional = _FIELDS[kind]
    given = set(data) - {"type"}
    unknown = sorted(given - required - optional)
    if unknown:
        raise ProtocolError(
            f"Unknown field {unknown[0]!r} in a {kind!r} frame.", key=key, field=unknown[0]
        )
    missing = sorted(required - given)
    if missing:
        raise ProtocolError(
            f"A {kind!r} frame needs the field {missing[0]!r}.", key=key, field=missing[0]
        )
    if "key" in data:
        try:
            check_key(data["key"], limit=TABLE_KEY_LENGTH)
        except InvalidRequest as error:
            raise ProtocolError(f"key: {error.message}", field="key") from None
    values: dict[str, Any] = {"type": kind, "key": key}
    if kind == "act":
        values["action"] = _string(data, "action", key, max_length=16)
        for name in ("amount", "version"):
            value = data.get(name)
            if value is not None and (not _is_int(value) or value < 0 or value >= 2**63):
                raise ProtocolError(f"{name} must be an integer or null.", key=key, field=name)
            values[name] = value
    elif kind == "chat":
        # The length rule (1..200 after whitespace is collapsed) is the chat service's.
        values["text"] = _string(data, "text", key)
    elif kind == "resync":
        value = data["from_version"]
        if not _is_int(value) or value < 0 or value >= 2**63:
            raise ProtocolError(
                "from_version must be a non-negative integer.", key=key, field="from_version"
            )
        values["from_version"] = value
    elif kind == "auth":
        values["token"] = _string(data, "token", key, max_length=MAX_TOKEN_LENGTH)
    return Frame(**values)


def _reject_constant(name: str) -> Any:
    # NaN / Infinity are not JSON; Python's parser accepts them unless told otherwise.
    raise ValueError(f"{name} is not JSON")


def _key_of(data: dict[str, Any]) -> str | None:
    """The frame's key when it is one (the one key rule: ``core.idempotency.check_key``)."""
    try:
        return check_key(data.get("key"), limit=TABLE_KEY_LENGTH)
    except InvalidRequest:
        return None


def _string(data: dict[str, Any], name: str, key: str | None, *, max_length: int = 0) -> str:
    value = data[name]
    if not isinstance(value, str) or (max_length and len(value) > max_length):
        limit = f" of at most {max_length} characters" if max_length else ""
        raise ProtocolError(f"{name} must be a string{limit}.", key=key, field=name)
    return value
