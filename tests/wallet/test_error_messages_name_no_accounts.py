"""Refusals that reach a client say what is wrong in the client's terms (currency, amounts)
and never name an internal account id, in the message or in ``extra``."""

from __future__ import annotations

import re
import uuid

import pytest

from core.exceptions import map_exception
from ledger.errors import AccountClosed, BalanceOutOfRange, CurrencyMismatch
from ledger.models import Account
from ledger.posting import MAX_AMOUNT
from ledger.services import ledger_account_close, ledger_post_transfers
from poker.commands.seating import table_create
from tests.support.ledger import fund, new_account, transfer
from tests.support.tables_api import post, tables_url
from tests.support.wallet import post as wallet_post

pytestmark = pytest.mark.django_db


def _assert_names_no_account(body: dict) -> None:
    ids = {str(pk) for pk in Account.objects.values_list("pk", flat=True)}
    assert "account_id" not in body["extra"], body
    assert not re.search(r"account\s*#?\d", body["message"]), body
    # Amounts may coincide with an id, so look for the ids the ledger used to print.
    words = set(re.findall(r"\d+", body["message"]))
    amounts = {str(v) for v in body["extra"].values() if isinstance(v, int)}
    assert not (words - amounts) & ids, body


def test_insufficient_funds_on_a_withdrawal_says_the_currency_and_amounts_not_the_account(
    player,
):
    response = wallet_post(
        player, "/api/v1/wallet/withdrawals/", {"amount": 10_001, "currency": "EUR"}
    )
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "insufficient_funds"
    assert body["message"] == "Insufficient funds: 10000 EUR available, 10001 needed."
    assert body["extra"] == {"currency": "EUR", "available": 10_000, "required": 10_001}
    _assert_names_no_account(body)


def test_insufficient_funds_on_a_buy_in_names_no_account(auth_client):
    table = table_create(name="T", variant="NT", small_blind=50, big_blind=100,
                         min_buy_in=2_000, max_buy_in=20_000_000, max_seats=6)  # fmt: skip
    client = auth_client()
    response = post(client, tables_url(table.pk, "sit"), {"buy_in": 10_000_000})
    assert response.status_code == 422, response.json()
    body = response.json()
    assert body["code"] == "insufficient_funds"
    assert "CHIPS" in body["message"]
    _assert_names_no_account(body)


def test_a_balance_leaving_the_64_bit_range_names_no_account():
    source = new_account(must_not_overdraw=False)
    sink = new_account(must_not_overdraw=False)
    ledger_post_transfers(transfers=[transfer(source, sink, MAX_AMOUNT)])
    fund(source, 1)  # so the next transfer is the one that overflows the sink
    with pytest.raises(BalanceOutOfRange) as err:
        ledger_post_transfers(transfers=[transfer(source, sink, 1)])
    assert err.value.account_id == sink.pk  # kept for logs and staff, not for clients
    status, body = map_exception(err.value)
    assert status == 422 and body["code"] == "balance_out_of_range"
    assert body["extra"] == {"currency": "EUR"}
    _assert_names_no_account(body)


def test_closed_and_mismatched_accounts_are_refused_without_naming_them():
    a, b = new_account(), new_account()
    fund(a, 10)
    usd = new_account("USD")
    with pytest.raises(CurrencyMismatch) as mismatch:
        ledger_post_transfers(transfers=[transfer(a, usd, 1, currency="EUR")])
    _assert_names_no_account(map_exception(mismatch.value)[1])
    ledger_account_close(account_id=b.pk)
    with pytest.raises(AccountClosed) as closed:
        ledger_post_transfers(transfers=[transfer(a, b, 1, id=uuid.uuid4())])
    _assert_names_no_account(map_exception(closed.value)[1])
