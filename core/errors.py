"""Typed domain errors shared by every app.

Each error has a stable machine ``code`` (clients switch on it), a human ``message``
with context, an ``extra`` dict of structured details, and the HTTP ``status`` the
one exception handler maps it to. This module imports nothing from Django so the
pure layers can raise these errors too.
"""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    """Base of every expected, client-facing error."""

    status: ClassVar[int] = 422
    default_code: ClassVar[str] = "domain_error"

    def __init__(self, message: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.code = code or self.default_code
        self.message = message
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        """The wire shape used by REST and WebSocket alike."""
        return {"code": self.code, "message": self.message, "extra": self.extra}


class NotFound(DomainError):
    status = 404
    default_code = "not_found"


class Conflict(DomainError):
    status = 409
    default_code = "conflict"


class Forbidden(DomainError):
    status = 403
    default_code = "forbidden"


class InvalidRequest(DomainError):
    status = 400
    default_code = "invalid"


class Gone(DomainError):
    status = 410
    default_code = "gone"


class TooManyRequests(DomainError):
    """A per-user quota is used up (not a rate throttle: no ``retry_after_s``)."""

    status = 429
    default_code = "too_many_requests"
