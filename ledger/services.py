"""Public ledger services (keyword-only). Reads live in ``ledger.selectors``.

Transaction contract:

* ``ledger_post_transfers``, ``ledger_transfer``, ``ledger_hold``, ``ledger_post_pending``,
  ``ledger_void_pending``: each is its own durable transaction
  (``transaction.atomic(durable=True)``) and refuses to run inside another one.
* ``ledger_post_transfers_in_transaction``: the same posting inside the CALLER's
  transaction (it raises ``TransactionRequired`` outside one). Its writes commit or roll
  back with the caller's; a refusal leaves nothing of ours and the caller may go on.

All of them share ``ledger.posting.post_legs``: there is one posting core.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from ledger.errors import AccountNotFound, InvalidTransfer
from ledger.models import Account, AccountKind
from ledger.posting import (
    LegRequest,
    PendingResolution,
    Posting,
    TransferRecord,
    TransferRequest,
    check_currency,
    post_durable,
    post_in_caller_transaction,
)


def ledger_account_open(
    *, kind: AccountKind | str, owner_ref: str, currency: str, must_not_overdraw: bool = True
) -> Account:
    """The account for (kind, owner, currency), created on first use.

    Safe to call concurrently and inside a caller's transaction: the insert is
    ``ON CONFLICT DO NOTHING``, so a race never aborts the transaction. The
    ``must_not_overdraw`` flag applies only when the account is created.

    >>> ledger_account_open(kind="player_cash", owner_ref="user:7", currency="EUR")
    ... # doctest: +SKIP
    """
    check_currency(currency)
    if kind not in AccountKind.values:
        raise InvalidTransfer(f"unknown account kind {kind!r}.", code="invalid_account_kind")
    lookup = {"kind": str(kind), "owner_ref": owner_ref, "currency": currency}
    account = Account.objects.filter(**lookup).first()
    if account is None:
        Account.objects.bulk_create(
            [Account(**lookup, must_not_overdraw=must_not_overdraw)], ignore_conflicts=True
        )
        account = Account.objects.get(**lookup)
    return account


def ledger_account_close(*, account_id: int) -> None:
    """Closes an empty account: it takes part in no further transfer."""
    with transaction.atomic(durable=True):
        account = Account.objects.select_for_update().filter(pk=account_id).first()
        if account is None:
            raise AccountNotFound(f"no account {account_id}.", account_id=account_id)
        if account.balance or account.held:
            raise InvalidTransfer(
                f"account {account_id} still holds {account.balance} ({account.held} held).",
                code="account_not_empty",
                account_id=account_id,
            )
        Account.objects.filter(pk=account_id).update(closed=True)


def ledger_post_transfers(*, transfers: Sequence[LegRequest]) -> Posting:
    """Posts linked transfers atomically, in a durable transaction of its own.

    All legs are applied or none. Posting the same ids again with the same content
    returns the originals (``replayed=True``); with other content raises
    ``TransferConflict``.
    """
    return post_durable(transfers)


def ledger_post_transfers_in_transaction(*, transfers: Sequence[LegRequest]) -> Posting:
    """``ledger_post_transfers`` inside the caller's ``transaction.atomic()`` block."""
    return post_in_caller_transaction(transfers)


def ledger_transfer(
    *,
    transfer_id: uuid.UUID,
    debit_account_id: int,
    credit_account_id: int,
    amount: int,
    currency: str,
    code: str,
    reference: str = "",
    metadata: Mapping[str, Any] | None = None,
) -> TransferRecord:
    """One posted transfer (durable)."""
    return post_durable(
        [
            TransferRequest(
                id=transfer_id,
                debit_account_id=debit_account_id,
                credit_account_id=credit_account_id,
                amount=amount,
                currency=currency,
                code=code,
                reference=reference,
                metadata=metadata or {},
            )
        ]
    ).transfers[0]


def ledger_hold(
    *,
    transfer_id: uuid.UUID,
    debit_account_id: int,
    credit_account_id: int,
    amount: int,
    currency: str,
    code: str,
    reference: str = "",
    metadata: Mapping[str, Any] | None = None,
) -> TransferRecord:
    """Reserves ``amount`` on the debit account (a pending transfer; durable)."""
    return post_durable(
        [
            TransferRequest(
                id=transfer_id,
                debit_account_id=debit_account_id,
                credit_account_id=credit_account_id,
                amount=amount,
                currency=currency,
                code=code,
                pending=True,
                reference=reference,
                metadata=metadata or {},
            )
        ]
    ).transfers[0]


def ledger_post_pending(
    *,
    transfer_id: uuid.UUID,
    pending_id: uuid.UUID,
    amount: int | None = None,
    reference: str = "",
    metadata: Mapping[str, Any] | None = None,
) -> TransferRecord:
    """Posts a hold, all of it (``amount=None``) or part (the rest is released); once."""
    return post_durable(
        [
            PendingResolution(
                id=transfer_id,
                pending_id=pending_id,
                amount=amount,
                reference=reference,
                metadata=metadata or {},
            )
        ]
    ).transfers[0]


def ledger_void_pending(
    *,
    transfer_id: uuid.UUID,
    pending_id: uuid.UUID,
    reference: str = "",
    metadata: Mapping[str, Any] | None = None,
) -> TransferRecord:
    """Releases a hold (once); nothing moves."""
    return post_durable(
        [
            PendingResolution(
                id=transfer_id,
                pending_id=pending_id,
                void=True,
                reference=reference,
                metadata=metadata or {},
            )
        ]
    ).transfers[0]
