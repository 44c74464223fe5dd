"""Typed refusals of the tournament services (``{"code", "message", "extra"}`` on the wire)."""

from __future__ import annotations

from core.errors import Conflict, DomainError, NotFound


class TournamentNotFound(NotFound):
    default_code = "tournament_not_found"


class AlreadyRegistered(Conflict):
    default_code = "already_registered"


class NotRegistered(DomainError):
    default_code = "not_registered"


class RegistrationClosed(DomainError):
    """The tournament takes no registration now (started, finished or cancelled)."""

    default_code = "registration_closed"


class TournamentFull(DomainError):
    default_code = "tournament_full"


class TournamentStarted(DomainError):
    """What is allowed only before the start (unregistering, a cancellation with full
    refunds) was asked after it."""

    default_code = "tournament_started"


class TournamentNotFinished(Conflict):
    """What exists only once the tournament has finished (its summary) was asked before."""

    default_code = "tournament_not_finished"
