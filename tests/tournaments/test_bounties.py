"""Knockout bounties (issue 29): part of each buy-in is a bounty paid to whoever busts
that player -- split on a split pot -- in the transaction of the bust, each a ledger
transfer from the tournament's bounty account; the winner's own at the finish, which
leaves the bounty account at zero (the audit's check: tests/audit/test_tournament_accounts.py)."""

from __future__ import annotations

import random

import pytest
from django.db import transaction

from handhistory.store import stream_events
from handhistory.verification import verify_stream
from ledger.audit import ledger_audit
from ledger.models import AccountKind
from poker.models import Seat, Table
from tests.support.poker import act_randomly
from tests.support.tournaments import (
    HAND_LEVELS,
    assert_places,
    cash,
    tournament_balances,
)
from tournaments.director import hand_finished
from tournaments.models import Entry, Tournament
from tournaments.selectors import tournament_detail
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db

BOUNTY = {"buy_in": 1_000, "fee": 100, "bounty": 200, "levels": HAND_LEVELS}
PAID = 1_000 + 100  # what registering took from each player's 10,000


def _start(make_tournament, funded, capture, **overrides):
    """A six-player bounty sit-and-go, started: (tournament, players, its table)."""
    tournament = make_tournament(**{**BOUNTY, **overrides})
    players = [funded() for _ in range(6)]
    for player in players[:-1]:
        tournament_register(tournament_id=tournament.pk, player=player)
    with capture(execute=True):
        tournament_register(tournament_id=tournament.pk, player=players[-1])
    tournament.refresh_from_db()
    (table,) = Table.objects.filter(tournament_id=tournament.pk)
    return tournament, players, table


@pytest.fixture
def started(make_tournament, funded, django_capture_on_commit_callbacks):
    return _start(make_tournament, funded, django_capture_on_commit_callbacks)


def _bust(table, hand, stacks, knockouts):
    with transaction.atomic():
        hand_finished(table.pk, hand, stacks, list(knockouts), knockouts)


def _won(player):
    return Entry.objects.get(player=player).bounties_won


def _paid(tournament):
    return [e.payload for e in stream_events(tournament.stream) if e.type == "BountyPaid"]


def test_the_player_who_busts_another_is_paid_their_bounty(started):
    tournament, players, table = started
    a, b, *rest = players

    _bust(table, 1, {a.pk: 0, b.pk: 3_000, **{p.pk: 1_500 for p in rest}}, {a.pk: (b.pk,)})

    assert cash(b) == 10_000 - PAID + 200
    assert cash(a) == 10_000 - PAID
    assert _won(b) == 200 and _won(a) == 0
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_BOUNTY] == 6 * 200 - 200
    assert _paid(tournament) == [{"user_id": b.pk, "busted": a.pk, "amount": 200, "hand": 1}]
    detail = tournament_detail(tournament=tournament, viewer_id=b.pk)
    won = {s["username"]: s["bounties_won"] for s in detail["standings"]}
    assert won[b.username] == 200 and won[a.username] == 0
    assert detail["you"]["bounties_won"] == 200
    assert ledger_audit().ok


def test_a_split_pot_splits_the_bounty_the_odd_unit_to_the_first_winner_left_of_the_button(
    make_tournament, funded, django_capture_on_commit_callbacks
):
    tournament, players, table = _start(
        make_tournament, funded, django_capture_on_commit_callbacks, bounty=201
    )
    a, b, c, *rest = players

    # Poker names the winners in the order the pot's odd chips went: c first, then b.
    _bust(
        table,
        1,
        {a.pk: 0, b.pk: 2_250, c.pk: 2_250, **{p.pk: 1_500 for p in rest}},
        {a.pk: (c.pk, b.pk)},
    )

    assert (_won(c), _won(b)) == (101, 100)
    assert (cash(c), cash(b)) == (10_000 - PAID + 101, 10_000 - PAID + 100)
    assert _paid(tournament) == [
        {"user_id": c.pk, "busted": a.pk, "amount": 101, "hand": 1},
        {"user_id": b.pk, "busted": a.pk, "amount": 100, "hand": 1},
    ]
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_BOUNTY] == 6 * 201 - 201


def test_two_players_busted_in_one_hand_by_the_same_winner_pay_two_bounties(started):
    tournament, players, table = started
    a, b, c, *rest = players

    _bust(
        table,
        1,
        {a.pk: 0, b.pk: 0, c.pk: 4_500, **{p.pk: 1_500 for p in rest}},
        {a.pk: (c.pk,), b.pk: (c.pk,)},
    )

    assert _won(c) == 400
    assert cash(c) == 10_000 - PAID + 400
    assert sorted(p["busted"] for p in _paid(tournament)) == sorted([a.pk, b.pk])
    assert {p["user_id"] for p in _paid(tournament)} == {c.pk}
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_BOUNTY] == 6 * 200 - 400


def test_the_winner_is_paid_their_own_bounty_at_the_finish_and_the_bounty_account_ends_at_zero(
    started,
):
    tournament, players, table = started
    winner = players[-1]

    for out in range(5):  # the winner busts every other player, one a hand
        left = players[out + 1 :]
        stacks = {players[out].pk: 0, **{p.pk: 9_000 // len(left) for p in left}}
        _bust(table, out + 1, stacks, {players[out].pk: (winner.pk,)})

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert _won(winner) == 6 * 200  # five knockouts and their own
    paid = _paid(tournament)
    assert paid[-1] == {"user_id": winner.pk, "busted": winner.pk, "amount": 200, "hand": None}
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 0,
        AccountKind.TOURNAMENT_BOUNTY: 0,
    }
    assert ledger_audit().ok
    assert verify_stream(stream_events(tournament.stream)) == []


def test_a_bounty_sit_and_go_played_by_bots_pays_every_bounty_and_conserves_the_money(
    started, django_capture_on_commit_callbacks
):
    tournament, players, _ = started
    by_id = {p.pk: p for p in players}
    rng = random.Random(2929)

    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(20_000):
            table = Table.objects.filter(
                tournament_id=tournament.pk, current_hand__isnull=False
            ).first()
            if table is None:
                break
            act_randomly(table.pk, by_id, rng)
    tournament.refresh_from_db()

    assert tournament.status == Tournament.Status.FINISHED
    entries = list(Entry.objects.filter(tournament=tournament))
    assert_places(entries, 6)
    # Every chip of money paid in came out: the prizes and the bounties are the buy-ins.
    assert sum(e.prize for e in entries) == 6 * (1_000 - 200)
    assert sum(e.bounties_won for e in entries) == 6 * 200
    for e in entries:
        assert cash(e.player) == 10_000 - PAID + e.prize + e.bounties_won
    # Each player's bounty was paid once, whole: to who busted them, the winner's to them.
    paid = _paid(tournament)
    by_busted: dict[int, int] = {}
    for p in paid:
        by_busted[p["busted"]] = by_busted.get(p["busted"], 0) + p["amount"]
    assert by_busted == {p.pk: 200 for p in players}
    (winner,) = (e for e in entries if e.place == 1)
    assert [p for p in paid if p["hand"] is None] == [
        {"user_id": winner.player_id, "busted": winner.player_id, "amount": 200, "hand": None}
    ]
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 0,
        AccountKind.TOURNAMENT_BOUNTY: 0,
    }
    assert not Seat.objects.filter(tournament_id=tournament.pk).exists()
    assert verify_stream(stream_events(tournament.stream)) == []
    assert ledger_audit().ok
