"""The ledger audit: recomputes everything from the transfers and compares.

Checks, per currency and per account:

* conservation: sum of posted debits == sum of posted credits, and the cached balances
  of all accounts sum to zero;
* every cached ``balance`` == its posted credits - its posted debits, and every cached
  ``held`` == the sum of its unresolved pending debits;
* no account flagged ``must_not_overdraw`` is negative (``balance - held < 0``);
* every transfer is in its accounts' currency, and every resolution matches its hold.

On PostgreSQL the queries run in one REPEATABLE READ, READ ONLY snapshot, so postings
committing meanwhile cannot produce a false alarm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

_MOVED = "('posted', 'posted_from_pending')"

_SQL_TOTALS = f"""
SELECT a.currency, 'debit', SUM(t.amount) FROM ledger_transfer t
  JOIN ledger_account a ON a.id = t.debit_account_id
  WHERE t.status IN {_MOVED} GROUP BY a.currency
UNION ALL
SELECT a.currency, 'credit', SUM(t.amount) FROM ledger_transfer t
  JOIN ledger_account a ON a.id = t.credit_account_id
  WHERE t.status IN {_MOVED} GROUP BY a.currency
UNION ALL
SELECT currency, 'balance', SUM(balance) FROM ledger_account GROUP BY currency
"""  # noqa: S608

_SQL_BALANCES = f"""
SELECT a.id, a.balance, a.held, COALESCE(c.s, 0) - COALESCE(d.s, 0), COALESCE(h.s, 0)
FROM ledger_account a
LEFT JOIN (SELECT credit_account_id AS id, SUM(amount) AS s FROM ledger_transfer
           WHERE status IN {_MOVED} GROUP BY credit_account_id) c ON c.id = a.id
LEFT JOIN (SELECT debit_account_id AS id, SUM(amount) AS s FROM ledger_transfer
           WHERE status IN {_MOVED} GROUP BY debit_account_id) d ON d.id = a.id
LEFT JOIN (SELECT p.debit_account_id AS id, SUM(p.amount) AS s FROM ledger_transfer p
           WHERE p.status = 'pending'
             AND NOT EXISTS (SELECT 1 FROM ledger_transfer r WHERE r.pending_id = p.id)
           GROUP BY p.debit_account_id) h ON h.id = a.id
WHERE a.balance <> COALESCE(c.s, 0) - COALESCE(d.s, 0) OR a.held <> COALESCE(h.s, 0)
ORDER BY a.id
"""  # noqa: S608

_SQL_NEGATIVE = """
SELECT id, balance, held FROM ledger_account
WHERE held < 0 OR (must_not_overdraw AND balance - held < 0) ORDER BY id
"""

_SQL_CURRENCY = """
SELECT t.id FROM ledger_transfer t
  JOIN ledger_account d ON d.id = t.debit_account_id
  JOIN ledger_account c ON c.id = t.credit_account_id
WHERE t.currency <> d.currency OR t.currency <> c.currency
ORDER BY t.id
"""

_SQL_RESOLUTIONS = """
SELECT r.id FROM ledger_transfer r JOIN ledger_transfer p ON p.id = r.pending_id
WHERE p.status <> 'pending'
   OR r.debit_account_id <> p.debit_account_id OR r.credit_account_id <> p.credit_account_id
   OR r.currency <> p.currency OR r.amount > p.amount
   OR (r.status = 'voided' AND r.amount <> p.amount)
ORDER BY r.id
"""

_SQL_COUNTS = "SELECT (SELECT COUNT(*) FROM ledger_account), (SELECT COUNT(*) FROM ledger_transfer)"


@dataclass
class AuditReport:
    """What the audit found; ``ok`` when ``problems`` is empty."""

    problems: list[str] = field(default_factory=list)
    currencies: dict[str, dict[str, int]] = field(default_factory=dict)
    accounts: int = 0
    transfers: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def render(self) -> str:
        """A human report, one line per currency and per problem."""
        lines = [f"Ledger audit: {self.accounts} accounts, {self.transfers} transfers"]
        for currency, totals in sorted(self.currencies.items()):
            lines.append(
                f"  {currency}: debits {totals['debit']} credits {totals['credit']} "
                f"sum of balances {totals['balance']}"
            )
        if self.ok:
            lines.append("OK: every check passed.")
        else:
            lines.append(f"FAILED: {len(self.problems)} discrepancies")
            lines += [f"  - {problem}" for problem in self.problems]
        return "\n".join(lines)


def _rows(sql: str) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return list(cursor.fetchall())


def _collect() -> AuditReport:
    report = AuditReport()
    ((report.accounts, report.transfers),) = _rows(_SQL_COUNTS)
    for currency, what, total in _rows(_SQL_TOTALS):
        totals = report.currencies.setdefault(currency, {"debit": 0, "credit": 0, "balance": 0})
        totals[what] = int(total or 0)
    for currency, totals in sorted(report.currencies.items()):
        if totals["debit"] != totals["credit"]:
            report.problems.append(
                f"{currency}: debits {totals['debit']} != credits {totals['credit']}"
            )
        if totals["balance"] != 0:
            report.problems.append(f"{currency}: balances sum to {totals['balance']}, not 0")
    for account_id, balance, held, expected_balance, expected_held in _rows(_SQL_BALANCES):
        report.problems.append(
            f"account {account_id}: cached balance {balance} held {held}, transfers say "
            f"balance {int(expected_balance)} held {int(expected_held)}"
        )
    for account_id, balance, held in _rows(_SQL_NEGATIVE):
        report.problems.append(
            f"account {account_id} must not overdraw but has balance {balance} held {held}"
        )
    for (transfer_id,) in _rows(_SQL_CURRENCY):
        report.problems.append(f"transfer {transfer_id} is not in its accounts' currency")
    for (transfer_id,) in _rows(_SQL_RESOLUTIONS):
        report.problems.append(f"resolution {transfer_id} does not match its pending transfer")
    return report


def ledger_audit() -> AuditReport:
    """Runs every check in one consistent snapshot and returns the report."""
    if connection.in_atomic_block or connection.vendor != "postgresql":
        with transaction.atomic():
            return _collect()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _collect()
