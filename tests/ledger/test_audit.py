"""The audit recomputes every balance from the transfers and names each discrepancy.

To fake corruption the tests switch the guards off inside the test's own transaction
(rolled back afterwards): the point is that the audit catches what the guards stop.
"""

from __future__ import annotations

import uuid

import pytest
from django.core.management import call_command
from django.db import connection

from ledger.audit import ledger_audit
from ledger.services import ledger_hold, ledger_post_transfers
from tests.support.ledger import transfer


def _sql(*statements, params=()):
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement, params)


def _tamper(sql, params=()):
    _sql(
        "ALTER TABLE ledger_account DISABLE TRIGGER ledger_account_guard",
        "ALTER TABLE ledger_account DROP CONSTRAINT ledger_account_no_overdraft",
    )
    _sql(sql, params=params)


def test_a_clean_ledger_passes_the_audit(account, capsys):
    a = account(1000)
    account(currency="USD")
    ledger_post_transfers(transfers=[transfer(a, account(), 10)])
    ledger_hold(
        transfer_id=uuid.uuid4(), debit_account_id=a.pk, credit_account_id=account().pk,
        amount=5, currency="EUR", code="h",
    )  # fmt: skip
    report = ledger_audit()
    assert report.ok, report.render()
    assert report.currencies["EUR"]["debit"] == report.currencies["EUR"]["credit"] >= 1010
    assert report.currencies["USD"] == {"debit": 0, "credit": 0, "balance": 0}
    call_command("ledger_audit")
    out = capsys.readouterr().out
    assert "OK: every check passed." in out and "EUR: debits" in out


def test_a_tampered_balance_is_reported_and_the_command_fails(account, capsys):
    a = account(1000)
    _tamper("UPDATE ledger_account SET balance = balance - 1001 WHERE id = %s", [a.pk])
    report = ledger_audit()
    assert not report.ok
    text = "\n".join(report.problems)
    assert f"account {a.pk}: cached balance -1 held 0, transfers say balance 1000 held 0" in text
    assert f"account {a.pk} must not overdraw but has balance -1" in text
    assert "EUR: balances sum to -1001, not 0" in text
    with pytest.raises(SystemExit) as exit_:
        call_command("ledger_audit")
    assert exit_.value.code == 1
    assert "FAILED" in capsys.readouterr().err


def test_a_tampered_hold_is_reported(account):
    a = account(1000)
    _tamper("UPDATE ledger_account SET held = 7 WHERE id = %s", [a.pk])
    assert any("held 7, transfers say balance 1000 held 0" in p for p in ledger_audit().problems)


def test_a_transfer_across_currencies_is_reported(account):
    eur, usd = account(100), account(currency="USD")
    _sql(
        "SET CONSTRAINTS ALL IMMEDIATE",
        "ALTER TABLE ledger_transfer DROP CONSTRAINT ledger_transfer_credit_currency_fk",
        "ALTER TABLE ledger_account DISABLE TRIGGER ledger_account_guard",
    )
    tid = uuid.uuid4()
    _sql(
        "INSERT INTO ledger_transfer (id, debit_account_id, credit_account_id, amount, currency,"
        " code, status, reference, metadata, created_at)"
        " VALUES (%s, %s, %s, 40, 'EUR', 'x', 'posted', '', '{}', now())",
        params=[tid, eur.pk, usd.pk],
    )
    _sql("UPDATE ledger_account SET balance = balance - 40 WHERE id = %s", params=[eur.pk])
    _sql("UPDATE ledger_account SET balance = balance + 40 WHERE id = %s", params=[usd.pk])
    problems = ledger_audit().problems
    assert f"transfer {tid} is not in its accounts' currency" in problems
    assert any(p.startswith("USD: debits 0 != credits 40") for p in problems)


def test_a_resolution_that_does_not_match_its_hold_is_reported(account):
    a, b = account(100), account()
    hold = ledger_hold(
        transfer_id=uuid.uuid4(), debit_account_id=a.pk, credit_account_id=b.pk,
        amount=50, currency="EUR", code="h",
    )  # fmt: skip
    rid = uuid.uuid4()
    _sql(
        "INSERT INTO ledger_transfer (id, debit_account_id, credit_account_id, amount, currency,"
        " code, status, pending_id, reference, metadata, created_at)"
        " VALUES (%s, %s, %s, 10, 'EUR', 'x', 'voided', %s, '', '{}', now())",
        params=[rid, a.pk, b.pk, hold.id],
    )
    problems = ledger_audit().problems
    assert f"resolution {rid} does not match its pending transfer" in problems
    assert any(f"account {a.pk}: cached balance 100 held 50" in p for p in problems)


@pytest.mark.django_db(transaction=True)
def test_the_audit_runs_in_its_own_snapshot_outside_a_transaction(account):
    a = account(10)
    assert not connection.in_atomic_block
    report = ledger_audit()
    assert report.ok and report.accounts >= 2 and a.balance == 10
