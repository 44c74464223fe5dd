"""The durable services outside any transaction: on PostgreSQL a posting is one checked
statement in autocommit mode (its own transaction). Every refusal, replay and race must
still end exactly as on the careful path: a typed error and nothing written, or the
original transfers."""

from __future__ import annotations

import uuid

import pytest

from ledger.errors import (
    AccountClosed,
    AccountNotFound,
    CurrencyMismatch,
    HoldAlreadyResolved,
    InsufficientFunds,
    TransferConflict,
)
from ledger.models import Account, Transfer
from ledger.posting import PendingResolution, TransferRequest
from ledger.services import (
    ledger_account_close,
    ledger_hold,
    ledger_post_pending,
    ledger_post_transfers,
    ledger_void_pending,
)
from tests.support.ledger import fund, new_account, transfer

pytestmark = pytest.mark.django_db


def _state() -> tuple[int, list[tuple[int, int, int, int]]]:
    """Transfer count and every account's (id, balance, held, version)."""
    accounts = list(Account.objects.order_by("id").values_list("id", "balance", "held", "version"))
    return Transfer.objects.count(), accounts


def test_a_posting_outside_a_transaction_moves_money_and_bumps_versions():
    a, b = new_account(), new_account()
    fund(a, 100)
    posting = ledger_post_transfers(transfers=[transfer(a, b, 30, metadata={"why": "test"})])
    assert not posting.replayed
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.balance, a.version, b.balance, b.version) == (70, 2, 30, 1)
    stored = Transfer.objects.get(pk=posting.transfers[0].id)
    assert (stored.amount, stored.metadata, stored.status) == (30, {"why": "test"}, "posted")


def test_linked_legs_outside_a_transaction_touch_each_account_once():
    a, b, c = new_account(), new_account(), new_account()
    fund(a, 100)
    ledger_post_transfers(transfers=[transfer(a, b, 40), transfer(a, c, 10), transfer(b, c, 5)])
    balances = [x.balance for x in Account.objects.filter(pk__in=[a.pk, b.pk, c.pk]).order_by("id")]
    assert balances == [50, 35, 15]
    assert Account.objects.get(pk=a.pk).version == 2  # funding + this one posting


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("overdraft", InsufficientFunds),
        ("closed", AccountClosed),
        ("unknown", AccountNotFound),
        ("wrong_currency", CurrencyMismatch),
        ("one_account_two_currencies", CurrencyMismatch),
    ],
)
def test_a_refusal_outside_a_transaction_is_typed_and_writes_nothing(case, error):
    a, b, usd = new_account(), new_account(), new_account("USD")
    fund(a, 100)
    closed = new_account()
    ledger_account_close(account_id=closed.pk)
    legs = {
        "overdraft": [transfer(a, b, 60), transfer(a, b, 41)],
        "closed": [transfer(a, closed, 1)],
        "unknown": [
            TransferRequest(
                id=uuid.uuid4(),
                debit_account_id=a.pk,
                credit_account_id=10**12,
                amount=1,
                currency="EUR",
                code="test",
            )
        ],
        "wrong_currency": [transfer(a, usd, 1)],
        # Account b is named in EUR by one leg and in USD by the other.
        "one_account_two_currencies": [transfer(a, b, 1), transfer(b, usd, 1, currency="USD")],
    }[case]
    before = _state()
    with pytest.raises(error):
        ledger_post_transfers(transfers=legs)
    assert _state() == before


def test_a_replay_outside_a_transaction_returns_the_original_and_a_changed_one_conflicts():
    a, b = new_account(), new_account()
    fund(a, 100)
    first = transfer(a, b, 100)
    original = ledger_post_transfers(transfers=[first])
    before = _state()
    # The funds are spent now: the replay must still be recognised, not refused.
    again = ledger_post_transfers(transfers=[first])
    assert again.replayed and again.transfers == original.transfers
    with pytest.raises(TransferConflict):
        ledger_post_transfers(transfers=[transfer(b, a, 1, id=first.id)])
    assert _state() == before


def test_a_hold_is_resolved_once_outside_a_transaction():
    a, b = new_account(), new_account()
    fund(a, 100)
    hold = ledger_hold(transfer_id=uuid.uuid4(), debit_account_id=a.pk, credit_account_id=b.pk,
                       amount=80, currency="EUR", code="withdrawal")  # fmt: skip
    a.refresh_from_db()
    assert (a.balance, a.held) == (100, 80)
    post_id = uuid.uuid4()
    ledger_post_pending(transfer_id=post_id, pending_id=hold.id, amount=50)
    a.refresh_from_db()
    assert (a.balance, a.held) == (50, 0)
    before = _state()
    with pytest.raises(HoldAlreadyResolved):
        ledger_void_pending(transfer_id=uuid.uuid4(), pending_id=hold.id)
    # Replaying the resolution itself returns it.
    replay = ledger_post_transfers(
        transfers=[PendingResolution(id=post_id, pending_id=hold.id, amount=50)]
    )
    assert replay.replayed
    assert _state() == before
