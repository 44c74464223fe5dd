"""Typed errors of the tournament rules, with stable machine codes.

Like the engine's errors, each carries ``code`` (stable snake_case, which the edges map
to HTTP statuses), ``message`` (human text with context) and ``extra`` (plain JSON
values). Edges never parse ``message``.

>>> err = TournamentRuleError(code="invalid_levels", message="level 2: ...", extra={"level": 2})
>>> (err.code, str(err), err.extra)
('invalid_levels', 'level 2: ...', {'level': 2})
"""

from __future__ import annotations

from typing import Any


class TournamentRuleError(Exception):
    """Base of every error the tournament rules raise on purpose."""

    def __init__(self, *, code: str, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra: dict[str, Any] = dict(extra or {})


class StructureError(TournamentRuleError):
    """A blind structure that cannot be played (``invalid_levels``, ``invalid_breaks``,
    ``invalid_structure``, ``unknown_template``) or a clock read before the start."""


class PayoutError(TournamentRuleError):
    """Payout shares, prize pools or places that do not add up (``invalid_payouts``,
    ``invalid_prize_pool``, ``invalid_busts``)."""


class DealError(TournamentRuleError):
    """A deal or a cancellation that cannot be computed (``invalid_deal``,
    ``invalid_cancellation``)."""


class SeatingError(TournamentRuleError):
    """A field whose state breaks the seating rules (``invalid_field``), or a plan that does
    not fit the field it is applied to (``invalid_plan``)."""
