"""Read-only queries on the ledger."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from ledger.models import Account, Transfer


def account_get(*, account_id: int) -> Account | None:
    """The account, or None."""
    return Account.objects.filter(pk=account_id).first()


def accounts_of_owner(*, owner_ref: str, kind: str | None = None) -> QuerySet[Account]:
    """An owner's accounts, by currency."""
    accounts = Account.objects.filter(owner_ref=owner_ref)
    if kind is not None:
        accounts = accounts.filter(kind=kind)
    return accounts.order_by("currency")


def transfers_of_accounts(*, account_ids: Iterable[int]) -> QuerySet[Transfer]:
    """Every transfer touching the accounts, newest first."""
    ids = list(account_ids)
    return Transfer.objects.filter(
        Q(debit_account_id__in=ids) | Q(credit_account_id__in=ids)
    ).order_by("-created_at", "-id")
