"""Read-only wallet queries."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from ledger.models import Account, AccountKind, Transfer
from ledger.selectors import transfers_of_accounts
from wallet.models import Deposit, DepositLimit, Restriction, Withdrawal
from wallet.restrictions import SELF_IMPOSED, in_force


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
            rows.append({
                "currency": currency, "period": period.value, "limit": limit,
                "pending": pending, "used": spent,
                "remaining": None if limit is None else max(0, limit - spent),
            })  # fmt: skip
    return rows


def account_restrictions(*, user_id: int) -> list[Restriction]:
    """The player's own time-outs and self-exclusions in force, the longest first. Holds
    imposed by staff are never among them: players never see that they are watched."""
    rows = Restriction.objects.filter(in_force(timezone.now()), user_id=user_id,
                                      kind__in=SELF_IMPOSED)  # fmt: skip
    return sorted(rows, key=lambda r: (r.kind == Restriction.Kind.SELF_EXCLUSION, r.ends_at),
                  reverse=True)  # fmt: skip
