"""Read-only wallet queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet, Sum
from django.db.models.functions import TruncMonth
from django.utils import timezone

from ledger.models import Account, AccountKind, Transfer, TransferStatus
from ledger.selectors import transfers_of_accounts
from wallet.models import Deposit, DepositLimit, PlayMoneyReload, Restriction, Withdrawal
from wallet.restrictions import SELF_IMPOSED, in_force


class PlayReads:
    """The player's play, which the account shows but which lives above the wallet: the
    apps that own it set these in their ``ready()`` (the wallet imports neither).

    * ``results_by_month(user_id=, since=)``: ``(month's first day, table currency, net,
      hands)`` of the player's hands ended since ``since``, per calendar month (UTC)
      (``handhistory.selectors.results_by_month``);
    * ``sessions(user_id=)``: the player's current play session per table currency
      (``poker.selectors.play_sessions``).
    """

    results_by_month: Callable[..., Iterable[tuple[date, str, int, int]]]
    sessions: Callable[..., list[dict[str, Any]]]


PLAY = PlayReads()


def wallet_balances(*, user_id: int) -> list[dict[str, Any]]:
    """Per configured currency: posted balance, held (pending withdrawals), available."""
    accounts = {
        a.currency: a
        for a in Account.objects.filter(kind=AccountKind.PLAYER_CASH, owner_ref=f"user:{user_id}")
    }
    rows = []
    for currency in settings.WALLET_CURRENCIES:
        account = accounts.get(currency)
        balance, held = (account.balance, account.held) if account else (0, 0)
        rows.append(
            {"currency": currency, "balance": balance, "held": held, "available": balance - held}
        )
    return rows


def wallet_cash_account_ids(*, user_id: int) -> list[int]:
    return list(
        Account.objects.filter(
            kind=AccountKind.PLAYER_CASH, owner_ref=f"user:{user_id}"
        ).values_list("pk", flat=True)
    )


def wallet_transactions(*, user_id: int) -> tuple[QuerySet[Transfer], set[int]]:
    """The player's cash-account transfers, newest first, and those account ids."""
    ids = wallet_cash_account_ids(user_id=user_id)
    return transfers_of_accounts(account_ids=ids), set(ids)


def wallet_deposits(*, user_id: int) -> QuerySet[Deposit]:
    """The player's own deposits, newest first (ties: a stable order by id)."""
    return Deposit.objects.filter(user_id=user_id).order_by("-created_at", "-pk")


def wallet_withdrawals(*, user_id: int) -> QuerySet[Withdrawal]:
    """The player's own withdrawals, newest first (ties: a stable order by id)."""
    return Withdrawal.objects.filter(user_id=user_id).order_by("-created_at", "-pk")


def account_deposit_limits(*, user_id: int) -> list[dict[str, Any]]:
    """Per real currency and period: the limit in force (None: none), a pending change
    (``{"amount", "from"}``; amount None: the limit goes), deposits (pending or
    confirmed) in the period's rolling window, and what is left (None: no limit)."""
    now = timezone.now()
    currencies = [c for c in settings.WALLET_CURRENCIES if c != "CHIPS"]
    windows = DepositLimit.WINDOWS
    sums = (
        Deposit.objects.filter(
            user_id=user_id,
            currency__in=currencies,
            created_at__gte=now - max(windows.values()),
            status__in=[Deposit.Status.PENDING, Deposit.Status.CONFIRMED],
        )
        .values("currency")
        .annotate(
            **{p: Sum("amount", filter=Q(created_at__gte=now - w)) for p, w in windows.items()}
        )
    )
    used = {row["currency"]: row for row in sums}
    limits = {
        (row.currency, row.period): row
        for row in DepositLimit.objects.filter(user_id=user_id, currency__in=currencies)
    }
    rows = []
    for currency in currencies:
        for period in DepositLimit.Period:
            row = limits.get((currency, period.value))
            limit = row.in_force(now) if row is not None else None
            spent = int(used.get(currency, {}).get(period.value) or 0)
            pending = (
                {"amount": row.pending_amount, "from": row.pending_from.isoformat()}
                if row is not None and row.pending_at(now) and row.pending_from is not None
                else None
            )
            rows.append(
                {
                    "currency": currency,
                    "period": period.value,
                    "limit": limit,
                    "pending": pending,
                    "used": spent,
                    "remaining": None if limit is None else max(0, limit - spent),
                }
            )
    return rows


def account_restrictions(*, user_id: int) -> list[Restriction]:
    """The player's own time-outs and self-exclusions in force, the longest first. Holds
    imposed by staff are never among them: players never see that they are watched."""
    rows = Restriction.objects.filter(
        in_force(timezone.now()), user_id=user_id, kind__in=SELF_IMPOSED
    )
    return sorted(
        rows, key=lambda r: (r.kind == Restriction.Kind.SELF_EXCLUSION, r.ends_at), reverse=True
    )


def wallet_last_reload(*, user_id: int) -> PlayMoneyReload | None:
    """The player's most recent play-money reload, if any."""
    return PlayMoneyReload.objects.filter(user_id=user_id).order_by("-created_at").first()


def wallet_next_reload_at(*, user_id: int) -> datetime | None:
    """When the player may reload play money again, if not yet (the period's end)."""
    last = wallet_last_reload(user_id=user_id)
    if last is None:
        return None
    due = last.created_at + timedelta(hours=int(settings.WALLET_RELOAD_PERIOD_HOURS))
    return due if due > timezone.now() else None


def _month_starts(months: int, now: datetime) -> list[date]:
    """The first days of the last ``months`` calendar months (UTC), newest first."""
    year, month = now.year, now.month
    starts = []
    for _ in range(months):
        starts.append(date(year, month, 1))
        year, month = (year - 1, 12) if month == 1 else (year, month - 1)
    return starts


#: The totals of a month, per currency, in the order the page and the API show them.
HISTORY_FIELDS = (
    "deposits",
    "withdrawals",
    "withdrawals_pending",
    "play_money",
    "buy_ins",
    "cash_outs",
    "net",
    "hands",
)


def account_history(*, user_id: int, months: int = 12) -> list[dict[str, Any]]:
    """Per calendar month (UTC) of the last ``months``, newest first: per currency the
    player's confirmed deposits, withdrawals paid out, withdrawals still open (held, not
    yet withdrawn: approved, they move to withdrawals; rejected or cancelled, they vanish),
    play money received (sign-up grant and reloads), buy-ins and cash-outs at the tables,
    net result of the hands played and how many hands.

    ``[{"month": "2026-11", "currencies": [{"currency": "CHIPS", "deposits": 0, ...}]}]``;
    a month with nothing lists no currency.
    """
    starts = _month_starts(months, timezone.now())
    since = datetime.combine(starts[-1], datetime.min.time(), tzinfo=UTC)
    month = TruncMonth("created_at", tzinfo=UTC)
    totals: dict[tuple[date, str], dict[str, int]] = defaultdict(
        lambda: dict.fromkeys(HISTORY_FIELDS, 0)
    )

    def add(rows: Any, field: str, value: str = "total") -> None:
        for row in rows:
            totals[(row["month"].date(), row["currency"])][field] += int(row[value] or 0)

    deposits = Deposit.objects.filter(
        user_id=user_id, created_at__gte=since, status=Deposit.Status.CONFIRMED
    )
    add(
        deposits.annotate(month=month).values("month", "currency").annotate(total=Sum("amount")),
        "deposits",
    )
    withdrawals = Withdrawal.objects.filter(user_id=user_id, created_at__gte=since)
    for statuses, field in (
        ((Withdrawal.Status.APPROVED,), "withdrawals"),
        (Withdrawal.OPEN, "withdrawals_pending"),
    ):
        add(
            withdrawals.filter(status__in=statuses)
            .annotate(month=month)
            .values("month", "currency")
            .annotate(total=Sum("amount")),
            field,
        )
    cash = wallet_cash_account_ids(user_id=user_id)
    posted = Transfer.objects.filter(created_at__gte=since, status=TransferStatus.POSTED)
    add(
        posted.filter(code__in=["signup_grant", "play_money_reload"], credit_account_id__in=cash)
        .annotate(month=month)
        .values("month", "currency")
        .annotate(total=Sum("amount")),
        "play_money",
    )
    table_money = posted.filter(code__in=["buy_in", "cash_out"])
    add(
        table_money.filter(code="buy_in", debit_account_id__in=cash)
        .annotate(month=month)
        .values("month", "currency")
        .annotate(total=Sum("amount")),
        "buy_ins",
    )
    add(
        table_money.filter(code="cash_out", credit_account_id__in=cash)
        .annotate(month=month)
        .values("month", "currency")
        .annotate(total=Sum("amount")),
        "cash_outs",
    )
    for month_start, currency, net, count in PLAY.results_by_month(user_id=user_id, since=since):
        totals[(month_start, currency)]["net"] += net
        totals[(month_start, currency)]["hands"] += count
    return [
        {
            "month": start.strftime("%Y-%m"),
            "currencies": [
                {"currency": currency, **totals[(start, currency)]}
                for currency in sorted({c for (m, c) in totals if m == start})
            ],
        }
        for start in starts
    ]
