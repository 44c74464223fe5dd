"""Typed ledger errors: each has a stable ``code`` and maps to 404/409/422 in the API."""

from __future__ import annotations

from typing import Any

from core.errors import DomainError, InvalidRequest


class LedgerError(DomainError):
    """Base of every ledger refusal; nothing was written when one is raised.

    ``message`` and ``extra`` reach clients (the API's error body), so they speak of
    currencies and amounts, never of account ids: a player's cash account is an internal
    row. The account concerned is kept on ``account_id`` for logs and staff.
    """

    status = 422
    default_code = "ledger_error"

    def __init__(
        self, message: str, *, code: str | None = None, account_id: int | None = None, **extra: Any
    ) -> None:
        super().__init__(message, code=code, **extra)
        self.account_id = account_id


class InvalidTransfer(LedgerError):
    """The request itself is malformed (amount, accounts, duplicate ids...)."""

    default_code = "invalid_transfer"


class InvalidAmount(InvalidTransfer, InvalidRequest):
    """An amount that is not money: anything but an integer from 1 to 2**63-1 minor units.

    The one refusal of a malformed amount, wherever it is checked (the ledger, the wallet,
    the tables: ``ledger.posting.check_amount``). A malformed value is a malformed request,
    so it is an ``InvalidRequest`` too and answers 400 like the wallet always did; an
    amount the rules refuse in a betting spot is the engine's 422 ``invalid_amount``.
    """

    status = 400
    default_code = "invalid_amount"


class InsufficientFunds(LedgerError):
    """The debit account must not overdraw and lacks available funds."""

    default_code = "insufficient_funds"


class CurrencyMismatch(LedgerError):
    """The transfer's currency differs from one of its accounts' currency."""

    default_code = "currency_mismatch"


class BalanceOutOfRange(LedgerError):
    """The posting would push a balance beyond what a 64-bit integer holds."""

    default_code = "balance_out_of_range"


class TransferNotPending(LedgerError):
    """Only a pending transfer (a hold) can be posted or voided."""

    default_code = "transfer_not_pending"


class TransferConflict(LedgerError):
    """A transfer id was already used for a transfer with different content."""

    status = 409
    default_code = "transfer_conflict"


class AccountClosed(LedgerError):
    """A closed account takes part in no new transfer."""

    status = 409
    default_code = "account_closed"


class HoldAlreadyResolved(LedgerError):
    """The pending transfer was already posted or voided (by another transfer id)."""

    status = 409
    default_code = "hold_already_resolved"


class AccountNotFound(LedgerError):
    status = 404
    default_code = "account_not_found"


class PendingTransferNotFound(LedgerError):
    status = 404
    default_code = "pending_transfer_not_found"
