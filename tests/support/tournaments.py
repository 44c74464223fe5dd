"""Helpers of the tournament tests: balances of a tournament's accounts, what the ledger
and the event store hold (to prove a refusal changed neither), the prizes a structure
says."""

from __future__ import annotations

from typing import Any

from handhistory.models import Event
from ledger.models import Account, Transfer
from tournaments.models import Tournament
from wallet.services import player_account

#: Levels of three hands (of all the tournament's tables): the blinds rise while bots play.
HAND_LEVELS = [
    {"small_blind": 10, "big_blind": 20, "ante": 0, "hands": 3},
    {"small_blind": 20, "big_blind": 40, "ante": 0, "hands": 3},
    {"small_blind": 40, "big_blind": 80, "ante": 10, "hands": 3},
    {"small_blind": 100, "big_blind": 200, "ante": 25, "hands": 3},
    {"small_blind": 200, "big_blind": 400, "ante": 50, "hands": 3},
]


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


def assert_places(entries: Any, players: int) -> None:
    """Places 1..``players`` each once (players busting together with equal stacks share
    a range of them), one winner."""
    ranges = [(e.place, e.last_place) for e in entries]
    assert all(ranges.count(r) == r[1] - r[0] + 1 for r in ranges)
    assert sorted(p for first, last in set(ranges) for p in range(first, last + 1)) == list(
        range(1, players + 1)
    )
    assert ranges.count((1, 1)) == 1


def assert_prizes(entries: Any, prizes: dict[int, int]) -> None:
    """Place p wins prizes[p] (0 outside them); players sharing places split those
    places' prizes evenly, the odd units one each to some of them, as the structure says."""
    by_range: dict[tuple[int, int], list[Any]] = {}
    for e in entries:
        by_range.setdefault((e.place, e.last_place), []).append(e)
    for (first, last), group in by_range.items():
        total = sum(prizes.get(p, 0) for p in range(first, last + 1))
        assert sum(e.prize for e in group) == total, (first, last)
        assert {e.prize - total // len(group) for e in group} <= {0, 1}, (first, last)
