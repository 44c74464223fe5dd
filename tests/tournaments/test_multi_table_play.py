"""A scheduled multi-table tournament played to a winner on real PostgreSQL, through the
real table service, by in-process bots (issue 29): 20 players at 6-max start on four
tables, which the director balances, breaks and brings to a final table, playing
hand-for-hand on the bubble. After every hand: every player in play holds exactly one
seat, the chips in play are the chips issued, and the field is as the rules leave it (no
move the balancer would still make, every idle table that could deal held for a reason).
At the end: places unique (or shared ranges), prizes exactly the structure's, the pool at
zero, the streams verified and every audit check clean."""

from __future__ import annotations

import io
import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from handhistory.store import stream_events
from handhistory.verification import verify_stream
from ledger.models import AccountKind
from poker.commands.play import table_act
from poker.models import Seat, Table
from poker.selectors import table_view
from tests.support.poker import actor_for, key
from tests.support.tournaments import (
    HAND_LEVELS,
    assert_places,
    assert_prizes,
    cash,
    tournament_balances,
)
from tournaments.director import tournaments_start_due
from tournaments.models import Entry, Tournament
from tournaments.rules.balance import FieldState, TableState, balance
from tournaments.selectors import projected_payouts
from tournaments.services import tournament_register

# Real commits: the director makes its moves after each hand's commit, as in production,
# and the audit checks read in snapshot transactions of their own.
pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS, SEATS, STACK = 20, 6, 1_000
#: Seven places paid: the bubble (8 left) is played on two tables.
PAYOUTS = ["30", "20", "15", "12", "10", "8", "5"]


def _act(table_id, by_id, rng):
    """The player to act at ``table_id`` pushes, calls or folds (pushing often: the
    field shrinks fast)."""
    view = table_view(table_id=table_id, viewer_id=None)
    actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
    legal = table_view(table_id=table_id, viewer_id=actor)["you"]["legal_actions"]
    actions, roll, amount = legal["actions"], rng.random(), None
    if roll < 0.25 and {"bet", "raise"} & set(actions):
        action, amount = ("raise" if "raise" in actions else "bet"), legal["max_to"]
    elif roll < 0.65 and {"call", "check"} & set(actions):
        action = "call" if "call" in actions else "check"
    else:
        action = "check" if "check" in actions else "fold"
    table_act(table_id=table_id, player_id=actor, action=action, amount=amount, key=key(),
              actor=actor_for(by_id[actor]))  # fmt: skip


def _check_field(tournament, places_paid):
    """What must hold after every hand, once the director's moves are made."""
    assert tournament.moves == []
    round_ = tournament.hand_for_hand or {"finished": [], "busts": []}
    pending = {b["player"] for b in round_["busts"]}
    live = Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
    in_play = set(live.filter(place__isnull=True).values_list("player_id", flat=True)) - pending
    seats = Seat.objects.filter(tournament_id=tournament.pk)
    assert sorted(seats.values_list("player_id", flat=True)) == sorted(in_play)
    assert seats.aggregate(s=Sum("chips"))["s"] == PLAYERS * STACK
    assert not seats.filter(table_id__in=tournament.broken).exists()
    tables = list(
        Table.objects.filter(tournament_id=tournament.pk).exclude(pk__in=tournament.broken)
    )
    by_table = {t.pk: {} for t in tables}
    for table, number, player in seats.values_list("table_id", "number", "player_id"):
        by_table[table][number] = player
    field = FieldState(
        tables=tuple(
            TableState(
                number=t.tournament_table,
                seats=by_table[t.pk],
                button=t.button_seat,
                between_hands=t.current_hand_id is None,
            )
            for t in tables
        ),
        seats_per_table=SEATS,
    )
    plan = balance(field, random.Random(0))
    assert (plan.moves, plan.broken) == ((), ()), plan  # nothing the rules would still do
    for t in tables:  # an idle table that could deal is held (waiting, hand-for-hand)
        if t.current_hand_id is None and len(by_table[t.pk]) >= 2:
            assert t.pk in tournament.waiting, (t.pk, tournament.waiting)
    for t in tables:  # a table done with the round's hand waits for the others
        if t.pk in round_["finished"]:
            assert t.current_hand_id is None
    if not pending and len(in_play) == places_paid + 1:
        assert tournament.hand_for_hand is not None  # on the bubble


def test_a_scheduled_multi_table_tournament_is_played_to_one_winner_within_the_rules(
    make_tournament, funded
):
    tournament = make_tournament(
        bounty=0,
        start=timezone.now() + timedelta(hours=1),
        levels=HAND_LEVELS,
        payouts=PAYOUTS,
        starting_stack=STACK,
        seats_per_table=SEATS,
        min_players=10,
        max_players=40,
    )
    users = [funded() for _ in range(PLAYERS)]
    for user in users:
        tournament_register(tournament_id=tournament.pk, player=user)
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=timezone.now() - timedelta(seconds=1)
    )
    tournaments_start_due()
    by_id = {u.pk: u for u in users}
    rng = random.Random(29)
    checked = 0

    for _ in range(50_000):
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            break
        if tournament.hands_played > checked:
            checked = tournament.hands_played
            _check_field(tournament, len(PAYOUTS))
        dealing = list(
            Table.objects.filter(tournament_id=tournament.pk, current_hand__isnull=False)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        assert dealing, f"no table deals: waiting {tournament.waiting}, moves {tournament.moves}"
        _act(rng.choice(dealing), by_id, rng)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(Entry.objects.filter(tournament=tournament))
    assert_places(entries, PLAYERS)
    pool = PLAYERS * tournament.buy_in
    prizes = {int(place): amount for place, amount in projected_payouts(pool, PAYOUTS).items()}
    assert_prizes(entries, prizes)
    assert sum(e.prize for e in entries) == pool
    for e in entries:
        assert cash(e.player) == 10_000 - tournament.buy_in - tournament.fee + e.prize
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_POOL] == 0
    assert not Seat.objects.filter(tournament_id=tournament.pk).exists()
    rows = stream_events(tournament.stream)
    types = {r.type for r in rows}
    assert {"PlayerMoved", "TableBroken", "FinalTableFormed"} <= types
    assert verify_stream(rows) == []
    call_command("verify_event_store", stdout=io.StringIO())
    call_command("audit_run", "--all", stdout=io.StringIO(), stderr=io.StringIO())
