"""Read-only wallet queries."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from ledger.models import Account, AccountKind, Transfer
from ledger.selectors import transfers_of_accounts
from wallet.models import Deposit, Withdrawal


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
