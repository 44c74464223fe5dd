"""The database itself refuses to rewrite the ledger (PostgreSQL here, SQLite in a subprocess)."""

from __future__ import annotations

import textwrap
import uuid

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from ledger.models import Account, Transfer
from ledger.services import (
    ledger_account_close,
    ledger_post_transfers,
    ledger_post_transfers_in_transaction,
)
from tests.support.ledger import reload, transfer
from tests.support.sqlite import shell_on_sqlite


def _refused(sql, params=()):
    with pytest.raises(DatabaseError) as err, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(err.value)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_transfer SET amount = amount + 1 WHERE id = %s",
        "UPDATE ledger_transfer SET reference = 'rewritten' WHERE id = %s",
        "DELETE FROM ledger_transfer WHERE id = %s",
    ],
)
def test_the_database_refuses_to_update_or_delete_transfers(account, sql):
    a, b = account(100), account()
    record = ledger_post_transfers(transfers=[transfer(a, b, 10)]).transfers[0]
    assert "immutable" in _refused(sql, [record.id])
    assert Transfer.objects.get(pk=record.id).amount == 10


def test_the_orm_cannot_rewrite_transfers_either(account):
    a, b = account(100), account()
    ledger_post_transfers(transfers=[transfer(a, b, 10)])
    with pytest.raises(DatabaseError), transaction.atomic():
        Transfer.objects.filter(credit_account=b).update(amount=1)
    with pytest.raises(DatabaseError), transaction.atomic():
        Transfer.objects.filter(credit_account=a).delete()
    assert Transfer.objects.filter(credit_account=b).get().amount == 10


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_account SET balance = balance + 1000 WHERE id = %s",
        "UPDATE ledger_account SET balance = balance + 1000, version = version + 1 WHERE id = %s",
        "UPDATE ledger_account SET held = 0, version = version + 1 WHERE id = %s",
        "UPDATE ledger_account SET version = version + 5 WHERE id = %s",
    ],
)
def test_balances_change_only_through_the_posting_core(account, sql):
    a = account(100)
    assert "posting core" in _refused(sql, [a.pk])
    assert reload(a).balance == 100


def test_the_posting_window_is_closed_right_after_a_posting(account):
    a, b = account(100), account()
    with transaction.atomic():
        ledger_post_transfers_in_transaction(transfers=[transfer(a, b, 10)])
        assert "posting core" in _refused(
            "UPDATE ledger_account SET balance = balance + 1, version = version + 1 WHERE id = %s",
            [b.pk],
        )
    assert reload(b).balance == 10


def test_accounts_are_never_deleted_and_keep_their_identity(account):
    a = account()
    assert "never deleted" in _refused("DELETE FROM ledger_account WHERE id = %s", [a.pk])
    assert "identity" in _refused(
        "UPDATE ledger_account SET currency = 'USD' WHERE id = %s", [a.pk]
    )
    assert "identity" in _refused(
        "UPDATE ledger_account SET owner_ref = 'someone-else' WHERE id = %s", [a.pk]
    )


def test_accounts_open_with_zero_balances(db):
    with pytest.raises(DatabaseError, match="zero balances"), transaction.atomic():
        Account.objects.bulk_create(
            [Account(kind="bonus", owner_ref="x", currency="EUR", balance=9)]
        )


def test_closing_an_account_is_allowed(account):
    a = account()
    ledger_account_close(account_id=a.pk)
    assert reload(a).closed


def test_a_transfer_in_another_currency_than_its_accounts_cannot_be_stored(account):
    a, b = account(100), account()
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_transfer (id, debit_account_id, credit_account_id, amount, currency,"
            " code, status, reference, metadata, created_at)"
            " VALUES (%s, %s, %s, 1, 'USD', 'x', 'posted', '', '{}', now())",
            [uuid.uuid4(), a.pk, b.pk],
        )


@pytest.mark.parametrize(
    ("column", "value"),
    [("amount", 0), ("amount", -5), ("status", "'weird'"), ("credit_account_id", "__DEBIT__")],
)
def test_check_constraints_refuse_malformed_transfers(account, column, value):
    a, b = account(100), account()
    values = {
        "id": "%s",
        "debit_account_id": str(a.pk),
        "credit_account_id": str(b.pk),
        "amount": "1",
        "currency": "'EUR'",
        "code": "'x'",
        "status": "'posted'",
        "reference": "''",
        "metadata": "'{}'",
        "created_at": "now()",
    }
    values[column] = values["debit_account_id"] if value == "__DEBIT__" else str(value)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO ledger_transfer ({', '.join(values)}) VALUES ({', '.join(values.values())})",
            [uuid.uuid4()],
        )


def test_the_overdraft_check_constraint_backs_the_python_check(account):
    a = account(100)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('ledger.posting', 'on', true)")
        cursor.execute(
            "UPDATE ledger_account SET balance = -1, version = version + 1 WHERE id = %s", [a.pk]
        )


SQLITE_SCRIPT = textwrap.dedent(
    """
    import uuid
    from django.db import DatabaseError, connection, transaction
    from ledger.posting import TransferRequest, PendingResolution
    from ledger.services import ledger_account_open, ledger_post_transfers
    from ledger.audit import ledger_audit

    issuer = ledger_account_open(kind="bonus", owner_ref="i", currency="EUR", must_not_overdraw=False)
    alice = ledger_account_open(kind="player_cash", owner_ref="a", currency="EUR")
    bob = ledger_account_open(kind="player_cash", owner_ref="b", currency="EUR")
    t = TransferRequest(id=uuid.uuid4(), debit_account_id=issuer.pk, credit_account_id=alice.pk,
                        amount=500, currency="EUR", code="grant")
    ledger_post_transfers(transfers=[t])
    assert ledger_post_transfers(transfers=[t]).replayed
    hold = TransferRequest(id=uuid.uuid4(), debit_account_id=alice.pk, credit_account_id=bob.pk,
                           amount=200, currency="EUR", code="hold", pending=True)
    ledger_post_transfers(transfers=[hold])
    ledger_post_transfers(transfers=[PendingResolution(id=uuid.uuid4(), pending_id=hold.id, amount=150)])
    refused = []
    for sql in ["UPDATE ledger_transfer SET amount = 1",
                "DELETE FROM ledger_transfer",
                "UPDATE ledger_account SET balance = balance + 1",
                "DELETE FROM ledger_account",
                "UPDATE ledger_account SET currency = 'USD'"]:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql)
        except DatabaseError as exc:
            refused.append(str(exc))
    print("REFUSED", len(refused))
    report = ledger_audit()
    print(report.render())
    print("BALANCES", [a.balance for a in type(alice).objects.order_by("id")])
    """
)


@pytest.mark.slow
def test_sqlite_embedded_mode_migrates_and_its_triggers_refuse_rewrites(tmp_path):
    run = shell_on_sqlite(tmp_path, SQLITE_SCRIPT)
    assert run.returncode == 0, run.stderr
    assert "REFUSED 5" in run.stdout
    assert "OK: every check passed." in run.stdout
    assert "BALANCES [-500, 350, 150]" in run.stdout
