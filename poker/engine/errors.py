"""Typed engine errors with stable machine codes.

Every refusal carries ``code`` (stable snake_case, mapped to HTTP statuses and WebSocket
error frames by the edges), ``message`` (human text with context) and ``extra`` (a dict
of plain JSON values, e.g. the legal minimum). Edges never parse ``message``.
"""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Base of every error the engine raises on purpose.

    >>> err = EngineError(code="example", message="it broke", extra={"seat": 3})
    >>> (err.code, str(err), err.extra)
    ('example', 'it broke', {'seat': 3})
    """

    def __init__(self, *, code: str, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra: dict[str, Any] = dict(extra or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class IllegalAction(EngineError):
    """A command that the rules do not allow in the current state (nothing changed)."""


class InvalidConfig(EngineError):
    """A hand configuration that cannot be played (bad stakes, stacks or variant)."""


class InvalidEvent(EngineError):
    """An event that cannot be applied to the state: a corrupt or foreign event stream."""
