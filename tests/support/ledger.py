"""Helpers of the ledger tests (plain functions; the fixtures stay in tests/ledger/conftest.py)."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from ledger.models import Account, AccountKind
from ledger.posting import TransferRequest
from ledger.services import ledger_account_open, ledger_post_transfers

_owners = itertools.count()


def new_account(
    currency: str = "EUR", *, must_not_overdraw: bool = True, kind: str = AccountKind.PLAYER_CASH
) -> Account:
    return ledger_account_open(
        kind=kind,
        owner_ref=f"test:{uuid.uuid4().hex[:12]}:{next(_owners)}",
        currency=currency,
        must_not_overdraw=must_not_overdraw,
    )


def fund(account: Account, amount: int) -> None:
    """Credits ``account`` from an issuer that may go negative."""
    issuer = ledger_account_open(
        kind=AccountKind.BONUS,
        owner_ref="test:issuer",
        currency=account.currency,
        must_not_overdraw=False,
    )
    ledger_post_transfers(
        transfers=[
            TransferRequest(
                id=uuid.uuid4(),
                debit_account_id=issuer.pk,
                credit_account_id=account.pk,
                amount=amount,
                currency=account.currency,
                code="test_funding",
            )
        ]
    )


def transfer(debit: Account, credit: Account, amount: int, **kwargs: Any) -> TransferRequest:
    return TransferRequest(
        id=kwargs.pop("id", None) or uuid.uuid4(),
        debit_account_id=debit.pk,
        credit_account_id=credit.pk,
        amount=amount,
        currency=kwargs.pop("currency", debit.currency),
        code=kwargs.pop("code", "test"),
        **kwargs,
    )


def reload(account: Account) -> Account:
    return Account.objects.get(pk=account.pk)
