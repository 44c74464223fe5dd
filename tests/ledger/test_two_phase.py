"""Holds (pending transfers) and their resolution: post all or part, or void; once."""

from __future__ import annotations

import uuid

import pytest

from ledger.audit import ledger_audit
from ledger.errors import (
    HoldAlreadyResolved,
    InsufficientFunds,
    InvalidTransfer,
    PendingTransferNotFound,
    TransferConflict,
    TransferNotPending,
)
from ledger.models import Transfer
from ledger.posting import PendingResolution
from ledger.services import (
    ledger_hold,
    ledger_post_pending,
    ledger_post_transfers,
    ledger_void_pending,
)
from tests.support.ledger import reload, transfer


def _hold(a, b, amount):
    return ledger_hold(
        transfer_id=uuid.uuid4(),
        debit_account_id=a.pk,
        credit_account_id=b.pk,
        amount=amount,
        currency=a.currency,
        code="withdrawal",
    )


def test_a_hold_reserves_funds_without_moving_them(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    assert hold.status == "pending"
    a2 = reload(a)
    assert (a2.balance, a2.held, a2.available) == (100, 70, 30)
    assert reload(b).balance == 0
    with pytest.raises(InsufficientFunds):
        ledger_post_transfers(transfers=[transfer(a, b, 31)])
    with pytest.raises(InsufficientFunds):
        _hold(a, b, 31)
    assert ledger_audit().ok


def test_posting_a_hold_moves_all_of_it(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    posted = ledger_post_pending(transfer_id=uuid.uuid4(), pending_id=hold.id)
    assert (posted.status, posted.amount, posted.pending_id) == ("posted_from_pending", 70, hold.id)
    assert (reload(a).balance, reload(a).held, reload(b).balance) == (30, 0, 70)
    assert Transfer.objects.get(pk=hold.id).status == "pending"  # the hold row never changes
    assert ledger_audit().ok


def test_posting_part_of_a_hold_releases_the_rest(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    ledger_post_pending(transfer_id=uuid.uuid4(), pending_id=hold.id, amount=25)
    assert (reload(a).balance, reload(a).held, reload(b).balance) == (75, 0, 25)
    assert ledger_audit().ok


def test_voiding_a_hold_releases_it(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    voided = ledger_void_pending(transfer_id=uuid.uuid4(), pending_id=hold.id, reference="no")
    assert (voided.status, voided.amount) == ("voided", 70)
    assert (reload(a).balance, reload(a).held, reload(b).balance) == (100, 0, 0)
    assert ledger_audit().ok


@pytest.mark.parametrize("first_void", [True, False])
@pytest.mark.parametrize("second_void", [True, False])
def test_a_hold_is_resolved_at_most_once(account, first_void, second_void):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    resolve = ledger_void_pending if first_void else ledger_post_pending
    resolve(transfer_id=uuid.uuid4(), pending_id=hold.id)
    again = ledger_void_pending if second_void else ledger_post_pending
    with pytest.raises(HoldAlreadyResolved) as err:
        again(transfer_id=uuid.uuid4(), pending_id=hold.id)
    assert err.value.status == 409
    assert ledger_audit().ok


def test_resolving_again_with_the_same_id_returns_the_original(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    resolution_id = uuid.uuid4()
    first = ledger_post_pending(transfer_id=resolution_id, pending_id=hold.id, amount=10)
    assert ledger_post_pending(transfer_id=resolution_id, pending_id=hold.id, amount=10) == first
    with pytest.raises(TransferConflict):
        ledger_post_pending(transfer_id=resolution_id, pending_id=hold.id, amount=11)
    assert reload(b).balance == 10


def test_only_an_existing_pending_transfer_can_be_resolved(account):
    a, b = account(100), account()
    with pytest.raises(PendingTransferNotFound) as err:
        ledger_void_pending(transfer_id=uuid.uuid4(), pending_id=uuid.uuid4())
    assert err.value.status == 404
    posted = ledger_post_transfers(transfers=[transfer(a, b, 1)]).transfers[0]
    with pytest.raises(TransferNotPending):
        ledger_post_pending(transfer_id=uuid.uuid4(), pending_id=posted.id)


def test_a_post_cannot_exceed_its_hold(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_pending(transfer_id=uuid.uuid4(), pending_id=hold.id, amount=71)
    assert err.value.code == "amount_exceeds_hold"
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_pending(transfer_id=uuid.uuid4(), pending_id=hold.id, amount=0)
    assert err.value.code == "invalid_amount"


def test_a_void_takes_no_amount(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    with pytest.raises(InvalidTransfer):
        ledger_post_transfers(
            transfers=[PendingResolution(id=uuid.uuid4(), pending_id=hold.id, void=True, amount=5)]
        )


def test_a_hold_is_resolved_once_within_a_posting(account):
    a, b = account(100), account()
    hold = _hold(a, b, 70)
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(
            transfers=[
                PendingResolution(id=uuid.uuid4(), pending_id=hold.id),
                PendingResolution(id=uuid.uuid4(), pending_id=hold.id, void=True),
            ]
        )
    assert err.value.code == "duplicate_pending"


def test_a_resolution_and_transfers_post_together(account):
    a, b, fee = account(100), account(), account()
    hold = _hold(a, b, 70)
    posting = ledger_post_transfers(
        transfers=[
            PendingResolution(id=uuid.uuid4(), pending_id=hold.id, code="payout"),
            transfer(a, fee, 30),
        ]
    )
    assert [t.code for t in posting.transfers] == ["payout", "test"]
    assert (reload(a).balance, reload(a).held, reload(fee).balance) == (0, 0, 30)
    assert ledger_audit().ok
