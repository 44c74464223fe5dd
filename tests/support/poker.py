"""Helpers of the table tests (plain functions; the fixtures stay in tests/poker/conftest.py)."""

import itertools
import uuid

from handhistory.store import Actor
from ledger.models import AccountKind
from ledger.services import ledger_account_open, ledger_transfer
from poker import money

_keys = itertools.count()


#: The table the tests sit at unless they say otherwise.
TABLE_DEFAULTS = {
    "name": "T", "variant": "NT", "small_blind": 50, "big_blind": 100, "min_buy_in": 2_000,
    "max_buy_in": 20_000, "max_seats": 6,
}  # fmt: skip


def new_table(**overrides):
    """An open table of TABLE_DEFAULTS with ``overrides``."""
    from poker.commands.seating import table_create

    return table_create(**{**TABLE_DEFAULTS, **overrides})


def new_player(amount=100_000):
    """A user with ``amount`` play chips in the wallet, for fixtures wider than a test
    (the ``player`` fixture does the same within one)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username=f"p-{uuid.uuid4().hex[:12]}")
    fund(user, amount)
    return user


def fund(user, amount, currency="CHIPS"):
    """Gives a player wallet money from a play-money issuer account."""
    issuer = ledger_account_open(
        kind=AccountKind.BONUS, owner_ref="test-issuer", currency=currency, must_not_overdraw=False
    )
    cash = money.player_cash_account(player_id=user.pk, currency=currency)
    ledger_transfer(
        transfer_id=uuid.uuid4(), debit_account_id=issuer.pk, credit_account_id=cash.pk,
        amount=amount, currency=currency, code="test_grant",
    )  # fmt: skip
    return cash


def key():
    return f"k{next(_keys)}-{uuid.uuid4().hex[:8]}"


def actor_for(user):
    return Actor(kind="player", user_id=user.pk, client_ip="127.0.0.1")


def play_random_hands(t, users, hands, rng):
    """Drives random legal actions through the table service until ``hands`` more hands
    have ended (or nobody can play). Returns the number of actions taken."""
    from poker.models import Table

    by_id = {u.pk: u for u in users}
    start = Table.objects.get(pk=t.pk).hands_played
    actions = 0
    while True:
        table = Table.objects.get(pk=t.pk)
        finished = table.hands_played - (1 if table.current_hand_id else 0)
        if finished - start >= hands or table.current_hand_id is None:
            return actions
        act_randomly(t.pk, by_id, rng)
        actions += 1


def act_randomly(table_id, by_id, rng):
    """The player to act at ``table_id`` (one of ``by_id``: id -> user) takes a random
    legal action through the table service (a bet or raise to the minimum, the maximum or
    half-way)."""
    from poker.commands.play import table_act
    from poker.selectors import table_view

    view = table_view(table_id=table_id, viewer_id=None)
    actor_seat = view["hand"]["actor_seat"]
    actor_id = next(s["user_id"] for s in view["seats"] if s["seat"] == actor_seat)
    mine = table_view(table_id=table_id, viewer_id=actor_id)["you"]["legal_actions"]
    choice = rng.choice(mine["actions"])
    amount = None
    if choice in ("bet", "raise"):
        amount = rng.choice(
            [mine["min_to"], mine["max_to"], (mine["min_to"] + mine["max_to"]) // 2]
        )
    table_act(table_id=table_id, player_id=actor_id, action=choice, amount=amount, key=key(),
              actor=actor_for(by_id[actor_id]))  # fmt: skip


def play_hands_with_rebuys(t, users, buy_ins, hands, rng):
    """Random legal actions until ``hands`` hands have ended at ``t``; a player who busts
    rebuys their buy-in and sits in again, as people do (the deck is shuffled afresh each
    run, so without rebuys a table could stop after any number of hands)."""
    from handhistory.models import Hand
    from poker.commands.seating import table_sit_in, table_top_up
    from poker.models import Seat

    finished = Hand.objects.filter(table=t, ended_at__isnull=False)
    for _ in range(hands):  # each round ends at least one hand, or nobody could play
        if (done := finished.count()) >= hands:
            break
        play_random_hands(t, users, hands - done, rng)
        if finished.count() >= hands:
            break
        for user, buy_in in zip(users, buy_ins, strict=True):
            seat = Seat.objects.get(table=t, player=user)
            if seat.stake_account.balance == 0:
                table_top_up(table_id=t.pk, player_id=user.pk, amount=buy_in, key=key(),
                             actor=actor_for(user))  # fmt: skip
                table_sit_in(table_id=t.pk, player_id=user.pk, key=key(), actor=actor_for(user))
    assert finished.count() >= hands, "the table stopped dealing"


def hole_cards_by_user(hand_id: int, events: list[dict]) -> tuple[dict[int, set[str]], set[int]]:
    """(player id -> hole cards, ids of players who showed) from a hand's events as staff
    see them on the wire (every card)."""
    from handhistory.models import Hand
    from poker.engine.cards import format_card

    hand = Hand.objects.get(pk=hand_id)
    user_at = dict(zip(hand.seat_numbers, hand.player_ids, strict=True))
    hole = {
        user_at[e["seat"]]: {format_card(c) for c in e["cards"]}
        for e in events
        if e["type"] == "HoleCardsDealt"
    }
    shown = {user_at[e["seat"]] for e in events if e["type"] == "CardsShown"}
    return hole, shown


def force_embedded_store(monkeypatch):
    """Runs the table path on the embedded (ORM) store, which SQLite uses, on the suite's
    PostgreSQL database; this process's working sets, left by the other store, are dropped."""
    from poker import storage, table_io
    from poker.storage.embedded import EmbeddedTableStore

    monkeypatch.setattr(storage, "_chosen", EmbeddedTableStore())
    table_io._CACHE.clear()
