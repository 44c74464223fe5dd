"""ledger_post_transfers: linked legs, idempotency, typed refusals that write nothing."""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction

from ledger.audit import ledger_audit
from ledger.errors import (
    AccountClosed,
    AccountNotFound,
    BalanceOutOfRange,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidTransfer,
    TransferConflict,
)
from ledger.models import Account, Transfer, TransferStatus
from ledger.posting import MAX_AMOUNT, MAX_LEGS, TransactionRequired, post_legs
from ledger.services import (
    ledger_account_close,
    ledger_post_transfers,
    ledger_post_transfers_in_transaction,
    ledger_transfer,
)
from tests.support.ledger import fund, new_account, reload, transfer


def test_a_transfer_moves_money_and_bumps_versions(account):
    a, b = account(1000), account()
    posting = ledger_post_transfers(transfers=[transfer(a, b, 300, reference="hand:1")])
    assert not posting.replayed
    (record,) = posting.transfers
    assert (record.amount, record.status, record.reference) == (300, "posted", "hand:1")
    a2, b2 = reload(a), reload(b)
    assert (a2.balance, b2.balance) == (700, 300)
    assert (a2.version, b2.version) == (a.version + 1, b.version + 1)
    stored = Transfer.objects.get(pk=record.id)
    assert (stored.debit_account_id, stored.credit_account_id) == (a.pk, b.pk)
    assert ledger_audit().ok


def test_ledger_transfer_posts_one_transfer_with_metadata(account):
    a, b = account(50), account()
    record = ledger_transfer(
        transfer_id=uuid.uuid4(),
        debit_account_id=a.pk,
        credit_account_id=b.pk,
        amount=50,
        currency="EUR",
        code="cash_out",
        metadata={"seat": 3},
    )
    assert Transfer.objects.get(pk=record.id).metadata == {"seat": 3}
    assert reload(a).balance == 0


def test_linked_legs_are_all_or_none(account):
    payer, winner, rake = account(100), account(), account()
    with pytest.raises(InsufficientFunds) as err:
        ledger_post_transfers(transfers=[transfer(payer, winner, 95), transfer(payer, rake, 10)])
    assert err.value.extra == {"currency": "EUR", "available": 100, "required": 105}
    assert err.value.account_id == payer.pk
    assert Transfer.objects.filter(debit_account=payer).count() == 0
    assert reload(payer).balance == 100
    posting = ledger_post_transfers(
        transfers=[transfer(payer, winner, 95), transfer(payer, rake, 5)]
    )
    assert [t.amount for t in posting.transfers] == [95, 5]
    assert (reload(winner).balance, reload(rake).balance, reload(payer).balance) == (95, 5, 0)


def test_the_same_id_and_content_returns_the_original(account):
    a, b = account(100), account()
    leg = transfer(a, b, 60, metadata={"k": [1, 2]})
    first = ledger_post_transfers(transfers=[leg])
    again = ledger_post_transfers(transfers=[leg])
    assert again.replayed and again.transfers == first.transfers
    assert reload(a).balance == 40
    assert Transfer.objects.filter(pk=leg.id).count() == 1


def test_a_replay_returns_the_original_even_when_funds_are_now_spent(account):
    a, b = account(100), account()
    leg = transfer(a, b, 100)
    ledger_post_transfers(transfers=[leg])
    assert ledger_post_transfers(transfers=[leg]).replayed


def test_a_replay_returns_the_original_even_after_the_account_closed(account):
    a, b = account(100), account()
    leg = transfer(a, b, 100)
    ledger_post_transfers(transfers=[leg])
    ledger_account_close(account_id=a.pk)
    assert ledger_post_transfers(transfers=[leg]).replayed


def test_the_same_id_with_other_content_is_a_conflict(account):
    a, b = account(100), account()
    leg = transfer(a, b, 10)
    ledger_post_transfers(transfers=[leg])
    with pytest.raises(TransferConflict) as err:
        ledger_post_transfers(transfers=[transfer(a, b, 11, id=leg.id)])
    assert err.value.status == 409
    assert err.value.code == "transfer_conflict"
    assert reload(a).balance == 90


def test_a_batch_partially_posted_before_is_a_conflict(account):
    a, b = account(100), account()
    leg = transfer(a, b, 10)
    ledger_post_transfers(transfers=[leg])
    with pytest.raises(TransferConflict):
        ledger_post_transfers(transfers=[leg, transfer(a, b, 5)])
    assert reload(a).balance == 90


def test_a_conflict_is_found_even_when_the_new_content_would_be_refused(account):
    a, b = account(100), account()
    leg = transfer(a, b, 100)
    ledger_post_transfers(transfers=[leg])
    with pytest.raises(TransferConflict):
        ledger_post_transfers(transfers=[transfer(a, b, 1, id=leg.id)])


def test_a_transfer_is_refused_when_it_would_overdraw(account):
    a, b = account(100), account()
    with pytest.raises(InsufficientFunds) as err:
        ledger_post_transfers(transfers=[transfer(a, b, 101)])
    assert err.value.code == "insufficient_funds" and err.value.status == 422
    assert Transfer.objects.filter(debit_account=a).count() == 0


def test_an_account_allowed_to_go_negative_does(account):
    issuer, b = account(must_not_overdraw=False), account()
    ledger_post_transfers(transfers=[transfer(issuer, b, 5000)])
    assert reload(issuer).balance == -5000


def test_a_credit_to_an_account_is_never_refused_for_funds(account):
    a, b = account(10), account()
    ledger_post_transfers(transfers=[transfer(a, b, 10), transfer(b, a, 10)])
    assert reload(a).balance == 10


@pytest.mark.parametrize("amount", [0, -1, MAX_AMOUNT + 1, 2**64, 10.0, "10", True, None, 1.5])
def test_bad_amounts_are_refused_with_invalid_amount(account, amount):
    a, b = account(100), account()
    before = Transfer.objects.count()
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[transfer(a, b, amount)])
    assert err.value.code == "invalid_amount"
    assert Transfer.objects.count() == before


@pytest.mark.parametrize("currency", ["eur", "EURO", "", 5, "CHIP"])
def test_malformed_currencies_are_refused(account, currency):
    a, b = account(100), account()
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[transfer(a, b, 1, currency=currency)])
    assert err.value.code == "invalid_currency"


def test_a_transfer_in_another_currency_than_its_accounts_is_refused(account):
    a, usd = account(100), account(currency="USD")
    with pytest.raises(CurrencyMismatch):
        ledger_post_transfers(transfers=[transfer(a, usd, 1)])
    with pytest.raises(CurrencyMismatch) as err:
        ledger_post_transfers(transfers=[transfer(a, account(), 1, currency="USD")])
    assert err.value.extra["account_currency"] == "EUR"
    assert reload(a).balance == 100


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"code": ""}, "invalid_code"),
        ({"code": "x" * 65}, "invalid_code"),
        ({"reference": "r" * 129}, "invalid_reference"),
        ({"reference": None}, "invalid_reference"),
        ({"metadata": {"x": object()}}, "invalid_metadata"),
        ({"metadata": ["not", "a", "mapping"]}, "invalid_metadata"),
        ({"id": "not-a-uuid"}, "invalid_id"),
    ],
)
def test_malformed_fields_are_refused(account, change, code):
    a, b = account(100), account()
    leg = transfer(a, b, 1)
    bad = type(leg)(**{**{f: getattr(leg, f) for f in leg.__slots__}, **change})
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[bad])
    assert err.value.code == code


def test_debit_and_credit_must_differ(account):
    a = account(100)
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[transfer(a, a, 1)])
    assert err.value.code == "same_account"


def test_account_ids_must_be_integers(account):
    a, b = account(100), account()
    leg = transfer(a, b, 1)
    bad = type(leg)(**{**{f: getattr(leg, f) for f in leg.__slots__}, "debit_account_id": "1"})
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[bad])
    assert err.value.code == "invalid_account"


def test_an_unknown_account_is_refused(account):
    a = account(100)
    ghost = Account(pk=10**12, currency="EUR")
    with pytest.raises(AccountNotFound) as err:
        ledger_post_transfers(transfers=[transfer(a, ghost, 1)])
    assert err.value.status == 404


def test_postings_must_hold_one_to_max_legs(account):
    a, b = account(100), account()
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[])
    assert err.value.code == "invalid_posting_size"
    with pytest.raises(InvalidTransfer):
        ledger_post_transfers(transfers=[transfer(a, b, 1) for _ in range(MAX_LEGS + 1)])


def test_ids_must_not_repeat_within_a_posting(account):
    a, b = account(100), account()
    leg = transfer(a, b, 1)
    with pytest.raises(InvalidTransfer) as err:
        ledger_post_transfers(transfers=[leg, leg])
    assert err.value.code == "duplicate_id"


def test_a_closed_account_takes_no_transfer(account):
    a, b = account(100), account()
    ledger_account_close(account_id=b.pk)
    with pytest.raises(AccountClosed) as err:
        ledger_post_transfers(transfers=[transfer(a, b, 1)])
    assert err.value.status == 409
    assert reload(b).closed


def test_balances_never_leave_the_64_bit_range(account):
    a = account(must_not_overdraw=False)
    b = account()
    ledger_post_transfers(transfers=[transfer(a, b, MAX_AMOUNT)])
    with pytest.raises(BalanceOutOfRange):
        ledger_post_transfers(transfers=[transfer(a, b, 1)])
    assert reload(b).balance == MAX_AMOUNT


def test_a_posting_moving_more_than_64_bits_through_one_account_is_refused_whole(account):
    """Even when the balance it lands on would fit: the rules are judged in 64-bit
    arithmetic on SQLite as on PostgreSQL, so no delta may leave that range."""
    low, big, small = (account(must_not_overdraw=False) for _ in range(3))
    ledger_post_transfers(transfers=[transfer(low, account(), MAX_AMOUNT)])  # low: 1 - 2**63
    with pytest.raises(BalanceOutOfRange) as err:
        ledger_post_transfers(transfers=[transfer(big, low, MAX_AMOUNT), transfer(small, low, 1)])
    assert err.value.extra["currency"] == "EUR"
    assert [reload(a).balance for a in (low, big, small)] == [-MAX_AMOUNT, 0, 0]
    assert ledger_audit().ok


def test_the_durable_service_refuses_to_run_inside_another_transaction(account):
    a, b = account(100), account()
    with pytest.raises(RuntimeError), transaction.atomic():
        ledger_post_transfers(transfers=[transfer(a, b, 1)])


def test_the_in_transaction_variant_commits_with_the_caller(account):
    a, b = account(100), account()
    with transaction.atomic():
        ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 30)])
    assert reload(b).balance == 30


def test_the_in_transaction_variant_rolls_back_with_the_caller(account):
    a, b = account(100), account()
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 30)])
        _ = 1 / 0
    assert reload(b).balance == 0 and Transfer.objects.filter(credit_account=b).count() == 0


def test_a_refusal_inside_the_caller_transaction_leaves_it_usable(account):
    a, b = account(100), account()
    with transaction.atomic():
        with pytest.raises(InsufficientFunds):
            ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 300)])
        ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 20)])
    assert reload(b).balance == 20


def test_the_core_posts_in_the_callers_transaction_and_rolls_back_with_it(account):
    a, b = account(100), account()
    with transaction.atomic():
        posting = post_legs([transfer(a, b, 30), transfer(b, a, 5)])
        assert not posting.replayed and reload(b).balance == 25
    assert (reload(a).balance, reload(b).balance) == (75, 25)
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        post_legs([transfer(a, b, 75)])
        _ = 1 / 0
    assert (reload(a).balance, reload(b).balance) == (75, 25)


@pytest.mark.django_db(transaction=True)
def test_the_in_transaction_variant_refuses_to_run_outside_one(account):
    a, b = account(100), account()
    with pytest.raises(TransactionRequired):
        ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 1)])
    with pytest.raises(TransactionRequired):
        post_legs([transfer(a, b, 1)])


def test_accounts_are_opened_once_per_owner_kind_and_currency(transactional_db):
    from ledger.services import ledger_account_open

    first = ledger_account_open(kind="player_cash", owner_ref="user:x", currency="EUR")
    again = ledger_account_open(kind="player_cash", owner_ref="user:x", currency="EUR")
    other = ledger_account_open(kind="player_cash", owner_ref="user:x", currency="USD")
    assert first.pk == again.pk != other.pk
    assert first.must_not_overdraw
    with pytest.raises(InvalidTransfer):
        ledger_account_open(kind="nope", owner_ref="user:x", currency="EUR")
    with pytest.raises(InvalidTransfer):
        ledger_account_open(kind="player_cash", owner_ref="user:x", currency="euros")


def test_only_an_empty_existing_account_can_be_closed(account):
    a = account(5)
    with pytest.raises(InvalidTransfer) as err:
        ledger_account_close(account_id=a.pk)
    assert err.value.code == "account_not_empty"
    with pytest.raises(AccountNotFound):
        ledger_account_close(account_id=10**12)


def test_records_and_accounts_render_readably(account):
    a = account(7)
    assert str(a).startswith("player_cash:test:") and a.available == 7
    t = Transfer.objects.filter(credit_account=a).get()
    assert str(t).endswith("7 EUR posted") and t.status == TransferStatus.POSTED
    with pytest.raises(TypeError):
        t.save()


def test_new_account_helper_builds_unique_accounts(transactional_db):
    assert new_account().pk != new_account().pk
    fund(new_account(), 1)
