"""The staff reports: reads only, in integer minor units (the pages format them).

Rake is what the ledger says: the ``rake`` transfers credited to the house rake account,
each referencing its hand as ``hand:<id>`` (``wallet.services.hand_settle``), joined to the
hand's table for the table, the stakes and the variant. Tournament fees are the house's
tournament-fees account's transfers (fees in, refunds out), per day. Money of different
currencies never adds up: every row carries its currency.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from django.db import connection
from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate

from ledger.models import AccountKind
from wallet.amounts import money_format
from wallet.models import Deposit, Withdrawal

RakeBy = Literal["day", "table", "stake", "variant"]
RAKE_BY: tuple[RakeBy, ...] = ("day", "table", "stake", "variant")
#: The default window of a report: the last 30 days, today included.
DEFAULT_DAYS = 30


@dataclass(frozen=True, kw_only=True)
class Period:
    """Days ``since`` to ``until``, both included, in UTC."""

    since: date
    until: date

    @classmethod
    def last(cls, days: int = DEFAULT_DAYS, *, today: date | None = None) -> Period:
        today = today or datetime.now(UTC).date()
        return cls(since=today - timedelta(days=days - 1), until=today)

    @property
    def start(self) -> datetime:
        return datetime.combine(self.since, time.min, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        """The first instant after the period."""
        return datetime.combine(self.until + timedelta(days=1), time.min, tzinfo=UTC)


#: The SQL of each key (and its ORDER BY), in what PostgreSQL and SQLite (``make run``)
#: both understand; only the UTC day needs each its own.
_DAY = {
    "postgresql": "to_char((t.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')",
    "sqlite": "date(t.created_at)",  # stored as UTC text
}
_RAKE_KEYS: dict[RakeBy, tuple[str, str]] = {
    "day": ("", "1"),
    "table": ("tb.id || ' ' || tb.name", "min(tb.id)"),
    "stake": ("tb.small_blind || '/' || tb.big_blind", "min(tb.big_blind)"),
    "variant": ("tb.variant", "1"),
}


def rake_report(*, by: RakeBy, period: Period) -> list[dict[str, Any]]:
    """Rake per ``by`` (day, table, stake or variant) and currency over ``period``: rows of
    ``key``, ``currency``, ``hands`` (raked hands) and ``rake`` (minor units)."""
    key, order = _RAKE_KEYS[by]
    key = key or _DAY[connection.vendor]
    sql = f"""
        SELECT {key} AS key, t.currency, count(DISTINCT h.id) AS hands, sum(t.amount) AS rake
        FROM ledger_transfer t
        JOIN ledger_account a ON a.id = t.credit_account_id AND a.kind = %s
        JOIN poker_hand h ON t.reference = 'hand:' || h.id
        JOIN poker_table tb ON tb.id = h.table_id
        WHERE t.code = 'rake' AND t.created_at >= %s AND t.created_at < %s
        GROUP BY 1, 2
        ORDER BY {order}, 2
    """  # noqa: S608 (the interpolated parts are the constants above, never input)
    with connection.cursor() as cursor:
        adapt = connection.ops.adapt_datetimefield_value
        cursor.execute(sql, [AccountKind.HOUSE_RAKE, adapt(period.start), adapt(period.end)])
        return [
            {"key": k, "currency": c, "hands": int(n), "rake": int(r)}
            for k, c, n, r in cursor.fetchall()
        ]


def tournament_fees_report(*, period: Period) -> list[dict[str, Any]]:
    """Tournament fees per UTC day and currency over ``period``: rows of ``key`` (the
    day), ``currency``, ``tournaments`` (how many moved fees) and ``fees``: what the
    house's tournament-fees account took less what it refunded (minor units)."""
    sql = f"""
        SELECT {_DAY[connection.vendor]} AS key, t.currency,
               count(DISTINCT t.reference) AS tournaments,
               sum(CASE WHEN t.credit_account_id = a.id THEN t.amount ELSE -t.amount END)
        FROM ledger_transfer t
        JOIN ledger_account a ON a.kind = %s
             AND (a.id = t.credit_account_id OR a.id = t.debit_account_id)
        WHERE t.created_at >= %s AND t.created_at < %s
        GROUP BY 1, 2
        ORDER BY 1, 2
    """  # noqa: S608 (the interpolated part is a constant above, never input)
    with connection.cursor() as cursor:
        adapt = connection.ops.adapt_datetimefield_value
        kind = AccountKind.HOUSE_TOURNAMENT_FEES
        cursor.execute(sql, [kind, adapt(period.start), adapt(period.end)])
        return [
            {"key": k, "currency": c, "tournaments": int(n), "fees": int(f)}
            for k, c, n, f in cursor.fetchall()
        ]


def payments_report(*, period: Period) -> list[dict[str, Any]]:
    """Deposits and withdrawals per day (UTC), currency and kind: how many and how much in
    all, and per status (``count_<status>``, ``sum_<status>``)."""
    rows: list[dict[str, Any]] = []
    for kind, model in (("deposit", Deposit), ("withdrawal", Withdrawal)):
        statuses = model.Status.values  # type: ignore[attr-defined]  # the model is passed as a class; its manager and choices are not in the type
        per_status: dict[str, Any] = {}
        for status in statuses:
            per_status[f"count_{status}"] = Count("pk", filter=Q(status=status))
            per_status[f"sum_{status}"] = Sum("amount", filter=Q(status=status), default=0)
        grouped = (
            model.objects.filter(created_at__gte=period.start, created_at__lt=period.end)  # type: ignore[attr-defined]  # the model is passed as a class; its manager and choices are not in the type
            .annotate(day=TruncDate("created_at", tzinfo=UTC))
            .values("day", "currency")
            .annotate(count=Count("pk"), total=Sum("amount"), **per_status)
            .order_by("day", "currency")
        )
        for row in grouped:
            rows.append(
                {
                    "day": row["day"].isoformat(),
                    "currency": row["currency"],
                    "kind": kind,
                    "count": row["count"],
                    "total": int(row["total"]),
                    "statuses": {
                        s: {"count": row[f"count_{s}"], "sum": int(row[f"sum_{s}"])}
                        for s in statuses
                    },
                }
            )
    rows.sort(key=lambda r: (r["day"], r["currency"], r["kind"]))
    return rows


def csv_rows_rake(rows: list[dict[str, Any]], by: RakeBy) -> Iterator[list[Any]]:
    yield [by, "currency", "hands", "rake_minor", "rake"]
    for r in rows:
        yield [
            r["key"],
            r["currency"],
            r["hands"],
            r["rake"],
            money_format(r["rake"], r["currency"]),
        ]


def csv_rows_payments(rows: list[dict[str, Any]]) -> Iterator[list[Any]]:
    yield ["day", "currency", "kind", "status", "count", "amount_minor", "amount"]
    for r in rows:
        yield [
            r["day"],
            r["currency"],
            r["kind"],
            "all",
            r["count"],
            r["total"],
            money_format(r["total"], r["currency"]),
        ]
        for status, figures in r["statuses"].items():
            yield [
                r["day"],
                r["currency"],
                r["kind"],
                status,
                figures["count"],
                figures["sum"],
                money_format(figures["sum"], r["currency"]),
            ]
