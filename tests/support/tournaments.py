"""Helpers of the tournament tests: balances of a tournament's accounts, what the ledger
and the event store hold (to prove a refusal changed neither), the prizes a structure
says, and a sit-and-go played to its end."""

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


def played_sit_and_go(*, players: int = 6, seed: int = 29, **structure: Any) -> Any:
    """A freezeout sit-and-go of ``players`` (6-max, 10.00 + 1.00 EUR, levels of three
    hands) created by a staff director, filled by funded players and played to its winner
    by random legal actions through the table service, committed as it goes (the start
    runs after the filling registration's commit). Returns (tournament, players)."""
    import random
    import uuid

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from poker.models import Table
    from tests.support.ledger import fund
    from tests.support.poker import act_randomly
    from tournaments.services import tournament_create, tournament_register

    users = get_user_model().objects
    director = users.create_user(username=f"director-{uuid.uuid4().hex[:8]}", is_staff=True)
    director.groups.add(Group.objects.get(name="admin"))
    fields = {
        "name": "Sunday six",
        "variant": "NT",
        "currency": "EUR",
        "buy_in": 1_000,
        "fee": 100,
        "bounty": 0,
        "starting_stack": 1_500,
        "seats_per_table": 6,
        "min_players": 2,
        "max_players": players,
        "start": None,
        "levels": HAND_LEVELS,
        "breaks": [],
        "late_registration_levels": 0,
        "rebuy": None,
        "add_on": None,
        "guarantee": 0,
        "payouts": ["70", "30"],
        "action_seconds": 30,
        **structure,
    }
    tournament = tournament_create(staff_user=director, key=uuid.uuid4(), **fields)
    entrants = []
    for _ in range(players):
        user = users.create_user(username=f"p-{uuid.uuid4().hex[:8]}")
        fund(player_account(user_id=user.pk, currency="EUR"), 10_000)
        tournament_register(tournament_id=tournament.pk, player=user)
        entrants.append(user)
    by_id = {p.pk: p for p in entrants}
    rng = random.Random(seed)
    dealing = Table.objects.filter(tournament_id=tournament.pk, current_hand__isnull=False)
    for _ in range(20_000):
        table = dealing.first()
        if table is None:
            break
        act_randomly(table.pk, by_id, rng)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED, tournament.status
    return tournament, entrants
