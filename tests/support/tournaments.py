"""Helpers of the tournament tests: balances of a tournament's accounts and what the
ledger and the event store hold (to prove a refusal changed neither)."""

from __future__ import annotations

from typing import Any

from handhistory.models import Event
from ledger.models import Account, Transfer
from tournaments.models import Tournament
from wallet.services import player_account


def tournament_balances(tournament: Tournament) -> dict[str, int]:
    """Balance of each of the tournament's own accounts, by kind."""
    return dict(
        Account.objects.filter(owner_ref=tournament.owner_ref).values_list("kind", "balance")
    )


def cash(user: Any, currency: str = "EUR") -> int:
    account = player_account(user_id=user.pk, currency=currency)
    account.refresh_from_db()
    return account.balance


def records() -> tuple[int, int, tuple[int, ...]]:
    """(transfers, events, every account balance): unchanged means nothing was written."""
    balances = tuple(Account.objects.order_by("pk").values_list("balance", flat=True))
    return Transfer.objects.count(), Event.objects.count(), balances
