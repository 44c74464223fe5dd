"""Typed wallet errors (the ledger's own errors pass through unchanged)."""

from __future__ import annotations

from core.errors import Conflict, DomainError, InvalidRequest, NotFound


class UnknownCurrency(InvalidRequest):
    default_code = "unknown_currency"


class CurrencyNotAllowed(DomainError):
    """Play money is granted, never deposited or withdrawn."""

    default_code = "currency_not_allowed"


class WithdrawalBelowMinimum(DomainError):
    default_code = "withdrawal_below_minimum"


class WithdrawalDailyLimit(DomainError):
    default_code = "withdrawal_daily_limit"


class DepositAboveMaximum(DomainError):
    default_code = "deposit_above_maximum"


class DepositDailyLimit(DomainError):
    default_code = "deposit_daily_limit"


class WithdrawalNotPending(Conflict):
    default_code = "withdrawal_not_pending"


class SecondApproverRequired(Conflict):
    """The staff member who gave a withdrawal's first approval cannot give its second."""

    default_code = "second_approver_required"


class UnknownGateway(NotFound):
    default_code = "unknown_gateway"


class InvalidSignature(DomainError):
    status = 401
    default_code = "invalid_signature"


class StaleWebhook(DomainError):
    status = 401
    default_code = "webhook_stale"


class MalformedWebhook(InvalidRequest):
    default_code = "webhook_malformed"


class DepositMismatch(DomainError):
    default_code = "deposit_mismatch"


class AccountRestricted(DomainError):
    """The account is held (e.g. frozen after a fraud review): the action is refused.

    The message never says why beyond "under review": the detail is for staff.
    """

    status = 403
    default_code = "account_restricted"


class RestrictionNotActive(Conflict):
    default_code = "restriction_not_active"


class DepositLimitReached(DomainError):
    """The deposit would pass a limit the player set themselves (``extra``: period,
    limit, used, remaining)."""

    status = 403
    default_code = "deposit_limit_reached"


class InvalidPeriod(InvalidRequest):
    default_code = "invalid_period"


class InvalidDuration(InvalidRequest):
    """A time-out's hours or a self-exclusion's months out of range or not an integer."""

    default_code = "invalid_duration"


class RestrictionInForce(Conflict):
    """A time-out or self-exclusion already runs at least as long as the one asked for:
    a player may extend theirs, never shorten it."""

    default_code = "restriction_in_force"


class RestrictionMinimumTerm(Conflict):
    """A time-out or self-exclusion cannot be lifted before its end."""

    default_code = "restriction_minimum_term"


class ReloadNotNeeded(DomainError):
    """The play-money balance is already at (or above) the reload target."""

    default_code = "reload_not_needed"


class ReloadTooSoon(DomainError):
    """A reload was made within the period; ``extra.next_at`` says when the next is due."""

    default_code = "reload_too_soon"


class KycRequired(DomainError):
    """The withdrawal is above the amount allowed without a verified identity."""

    status = 403
    default_code = "kyc_required"


class KycNotAllowed(Conflict):
    """A review cannot be asked for in the current status (already verified)."""

    default_code = "kyc_not_allowed"
