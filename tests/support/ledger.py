"""Helpers of the ledger tests (plain functions; the fixtures stay in tests/ledger/conftest.py)."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from ledger.models import Account, AccountKind, Transfer
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


#: The typed refusals ``breach_every_rule`` meets, in order.
RULE_BREACHES = ["account_closed", "currency_mismatch", "currency_mismatch",
                 "insufficient_funds", "insufficient_funds", "balance_out_of_range",
                 "account_not_found", "account_closed"]  # fmt: skip


def breach_every_rule() -> list[str]:
    """Posts one posting against each account rule of ``ledger.posting`` (and one that
    breaks two: the first rule's refusal wins); the codes of the refusals. Asserts that
    none wrote anything. Runs on any database (the SQLite test runs it in a subprocess)."""
    from ledger.audit import ledger_audit
    from ledger.errors import LedgerError
    from ledger.posting import MAX_AMOUNT
    from ledger.services import ledger_account_close, ledger_post_transfers

    issuer = new_account(must_not_overdraw=False)
    alice, bob, closed = new_account(), new_account(), new_account()
    usd, usd_issuer = new_account("USD"), new_account("USD", must_not_overdraw=False)
    fund(alice, 500)
    ledger_post_transfers(transfers=[transfer(issuer, bob, MAX_AMOUNT - 1000)])
    ledger_account_close(account_id=closed.pk)
    missing = Account(pk=10**12, currency="EUR")
    postings = [
        [transfer(alice, closed, 1)],
        [transfer(alice, usd, 1)],
        [transfer(alice, bob, 1), transfer(usd_issuer, bob, 1)],  # bob named in two currencies
        [transfer(alice, bob, 501)],
        [transfer(alice, bob, 501, pending=True)],
        [transfer(new_account(must_not_overdraw=False), bob, 1001)],
        [transfer(alice, missing, 1)],
        [transfer(alice, bob, 501), transfer(alice, closed, 1)],
    ]
    accounts = [issuer, alice, bob, closed, usd, usd_issuer]
    before = [(a.balance, a.held, a.version) for a in map(reload, accounts)]
    transfers = Transfer.objects.count()
    codes = []
    for legs in postings:
        try:
            ledger_post_transfers(transfers=legs)
        except LedgerError as refusal:
            codes.append(refusal.code)
    assert [(a.balance, a.held, a.version) for a in map(reload, accounts)] == before
    assert Transfer.objects.count() == transfers
    assert ledger_audit().ok
    return codes
