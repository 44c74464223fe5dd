"""A sit-and-go played to a winner (issue 29's first slice of play): it starts inside the
registration that fills it, every table plays the tournament's one clock, the busted are
placed, the prizes are paid from the pool to zero, and what is refused moves nothing."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command
from django.db import transaction
from django.db.models import Sum

from handhistory.models import Event, Hand
from handhistory.store import stream_events
from handhistory.verification import verify_chains, verify_stream
from ledger.audit import ledger_audit
from ledger.models import AccountKind
from poker.models import Seat, Table
from tests.support.poker import act_randomly
from tests.support.tournaments import (
    HAND_LEVELS,
    assert_places,
    assert_prizes,
    cash,
    records,
    tournament_balances,
)
from tournaments.director import hand_finished, tournaments_start_due
from tournaments.errors import RegistrationClosed, TournamentStarted
from tournaments.models import Entry, Tournament
from tournaments.selectors import tournament_detail
from tournaments.services import tournament_register, tournament_unregister
from wallet.services import house_account

pytestmark = pytest.mark.django_db

FREEZEOUT = {"bounty": 0, "levels": HAND_LEVELS, "payouts": ["70", "30"]}


def _fill(tournament, players, capture):
    """Registers every player; the last registration's commit starts the tournament."""
    for player in players[:-1]:
        tournament_register(tournament_id=tournament.pk, player=player)
    with capture(execute=True):
        tournament_register(tournament_id=tournament.pk, player=players[-1])
    tournament.refresh_from_db()


@pytest.fixture
def started(make_tournament, funded, django_capture_on_commit_callbacks):
    """A six-player freezeout sit-and-go, started: (tournament, players, its table)."""
    tournament = make_tournament(**FREEZEOUT)
    players = [funded() for _ in range(6)]
    _fill(tournament, players, django_capture_on_commit_callbacks)
    (table,) = Table.objects.filter(tournament_id=tournament.pk)
    return tournament, players, table


def _chips_in_play(tournament):
    return Seat.objects.filter(tournament_id=tournament.pk).aggregate(s=Sum("chips"))["s"] or 0


def _act_once(tournament, by_id, rng):
    """One random legal action at a table of the tournament with a hand running; False
    when no table deals."""
    table = Table.objects.filter(tournament_id=tournament.pk, current_hand__isnull=False).first()
    if table is None:
        return False
    act_randomly(table.pk, by_id, rng)
    return True


def test_a_six_player_sit_and_go_is_played_to_one_winner_who_is_paid_the_structure(
    started, django_capture_on_commit_callbacks
):
    tournament, players, table = started
    by_id = {p.pk: p for p in players}

    assert tournament.status == Tournament.Status.RUNNING
    assert table.current_hand_id is not None  # the last seat dealt the first hand
    assert sorted(Seat.objects.filter(table=table).values_list("player_id", flat=True)) == sorted(
        by_id
    )
    started = [e for e in stream_events(tournament.stream) if e.type == "TournamentStarted"]
    assert started[0].payload["tables"][0]["table"] == table.pk
    assert {int(s): p for s, p in started[0].payload["tables"][0]["seats"].items()} == dict(
        Seat.objects.filter(table=table).values_list("number", "player_id")
    )

    rng = random.Random(29)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(20_000):
            if not _act_once(tournament, by_id, rng):
                break
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.RUNNING:
                assert _chips_in_play(tournament) == 6 * tournament.starting_stack
    tournament.refresh_from_db()

    assert tournament.status == Tournament.Status.FINISHED
    entries = list(Entry.objects.filter(tournament=tournament))
    assert_places(entries, 6)
    pool = 6 * tournament.buy_in
    assert sum(e.prize for e in entries) == pool
    assert_prizes(entries, {1: pool * 70 // 100, 2: pool * 30 // 100})
    for e in entries:
        assert cash(e.player) == 10_000 - tournament.buy_in - tournament.fee + e.prize
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 0,
        AccountKind.TOURNAMENT_BOUNTY: 0,
    }
    # The blinds rose by the tournament's clock: later hands were dealt bigger blinds.
    hands = Hand.objects.filter(table=table).order_by("number")
    assert hands.count() == tournament.hands_played
    blinds = [
        max(Event.objects.get(stream=h.stream, type="HandStarted").payload["blinds_or_straddles"])
        for h in hands
    ]
    assert blinds[0] == 20 and max(blinds) > 20
    # The last table is left empty: the winner moved out with their chips.
    assert not Seat.objects.filter(tournament_id=tournament.pk).exists()
    rows = stream_events(tournament.stream)
    assert [r.type for r in rows].count("PlayerBusted") == 5
    assert rows[-1].type == "TournamentFinished"
    assert verify_stream(rows) == []
    assert verify_chains()[1] == []
    call_command("verify_event_store", stdout=io.StringIO())
    assert ledger_audit().ok
    detail = tournament_detail(tournament=tournament, viewer_id=players[0].pk)
    assert detail["players_left"] == 0 and detail["level"] is None and detail["tables"] == []
    assert [s["place"] for s in detail["standings"]] == sorted(e.place for e in entries)


def test_registering_to_a_running_sit_and_go_is_refused_and_moves_nothing(started, funded):
    tournament, players, _ = started
    late = funded()
    before = records()

    with pytest.raises(RegistrationClosed):
        tournament_register(tournament_id=tournament.pk, player=late)
    with pytest.raises(TournamentStarted):
        tournament_unregister(tournament_id=tournament.pk, player=players[0])

    assert records() == before
    assert Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).count() == 6


def test_the_detail_shows_the_level_the_tables_and_the_standings_in_play(started):
    tournament, players, table = started

    detail = tournament_detail(tournament=tournament, viewer_id=players[2].pk)

    assert detail["level"] == {
        "number": 1,
        "small_blind": 10,
        "big_blind": 20,
        "ante": 0,
        "ends_at": None,
        "hands_left": 3,
    }
    (table,) = detail["tables"]
    assert sorted(s["username"] for s in table["seats"]) == sorted(p.username for p in players)
    assert sum(s["stack"] for s in table["seats"]) == 6 * tournament.starting_stack
    assert detail["players_left"] == 6
    assert [s["chips"] for s in detail["standings"]] == [tournament.starting_stack] * 6
    seat = Seat.objects.get(player=players[2], tournament_id=tournament.pk)
    assert detail["you"] == {
        "table": seat.table_id,
        "seat": seat.number,
        "chips": tournament.starting_stack,
        "place": None,
        "prize": None,
        "bounties_won": 0,
    }


def test_of_two_busting_in_one_hand_the_larger_starting_stack_places_higher(started):
    tournament, players, table = started
    a, b, c, *rest = players
    Entry.objects.filter(player=a).update(chips=500)
    Entry.objects.filter(player=b).update(chips=800)
    Entry.objects.filter(player=c).update(chips=800)
    stacks = {a.pk: 0, b.pk: 0, **{p.pk: 1_500 for p in rest}}

    with transaction.atomic():
        hand_finished(table.pk, 1, stacks, [a.pk, b.pk], {})

    places = dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "place"))
    assert places[a.pk] == 6 and places[b.pk] == 5
    busted = [e.payload for e in stream_events(tournament.stream) if e.type == "PlayerBusted"]
    assert busted == [
        {"user_id": a.pk, "place": 6, "last_place": 6, "hand": 1},
        {"user_id": b.pk, "place": 5, "last_place": 5, "hand": 1},
    ]


def test_busting_with_equal_starting_stacks_in_one_hand_shares_the_places(started):
    _, players, table = started
    a, b, *rest = players

    with transaction.atomic():
        hand_finished(
            table.pk, 1, {a.pk: 0, b.pk: 0, **{p.pk: 2_250 for p in rest}}, [a.pk, b.pk], {}
        )

    rows = Entry.objects.filter(player__in=[a, b]).values_list("place", "last_place")
    assert list(rows) == [(5, 6), (5, 6)]


def test_the_clock_counts_the_hands_the_tournament_has_finished(started):
    tournament, _, _ = started
    Tournament.objects.filter(pk=tournament.pk).update(hands_played=7)

    level = tournament_detail(tournament=Tournament.objects.get(pk=tournament.pk), viewer_id=None)
    assert level["level"]["number"] == 3 and level["level"]["hands_left"] == 2


def test_a_full_sit_and_go_whose_start_never_ran_is_started_by_the_sweeper_once(
    make_tournament, funded
):
    tournament = make_tournament(**FREEZEOUT)
    for player in [funded() for _ in range(6)]:  # the commits' callbacks are dropped here
        tournament_register(tournament_id=tournament.pk, player=player)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.REGISTERING

    tournaments_start_due()
    tournaments_start_due()

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert Table.objects.filter(tournament_id=tournament.pk).count() == 1
    assert Seat.objects.filter(tournament_id=tournament.pk).count() == 6
    types = [e.type for e in stream_events(tournament.stream)]
    assert types.count("TournamentStarted") == 1


def test_the_house_pays_a_guarantees_overlay_into_the_pool_which_ends_at_zero(
    make_tournament, funded, django_capture_on_commit_callbacks
):
    tournament = make_tournament(**FREEZEOUT, guarantee=10_000)  # 6 x 1,000 collected
    players = [funded() for _ in range(6)]
    _fill(tournament, players, django_capture_on_commit_callbacks)
    (table,) = Table.objects.filter(tournament_id=tournament.pk)
    house = house_account(kind=AccountKind.ADJUSTMENT, currency="EUR")
    house_before = house.balance

    for out in range(5):  # one bust a hand until one player is left
        left = players[out + 1 :]
        stacks = {players[out].pk: 0, **{p.pk: 9_000 // len(left) for p in left}}
        with transaction.atomic():
            hand_finished(table.pk, out + 1, stacks, [players[out].pk], {})

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    prizes = dict(Entry.objects.filter(tournament=tournament).values_list("place", "prize"))
    assert prizes == {1: 7_000, 2: 3_000, 3: 0, 4: 0, 5: 0, 6: 0}
    house.refresh_from_db()
    assert house_before - house.balance == 4_000
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_POOL] == 0
    assert ledger_audit().ok


def test_the_rest_detail_of_a_running_sit_and_go_shows_the_level_tables_standings_and_you(
    started, auth_client
):
    tournament, players, table = started

    body = auth_client(players[0]).get(f"/api/v1/tournaments/{tournament.pk}/").json()

    assert body["status"] == "running"
    assert body["level"]["number"] == 1 and body["level"]["big_blind"] == 20
    assert [t["id"] for t in body["tables"]] == [table.pk]
    assert len(body["standings"]) == 6 and body["players_left"] == 6
    assert body["you"]["table"] == table.pk and body["you"]["chips"] == 1_500


def test_a_sit_and_go_larger_than_a_table_is_drawn_onto_tables_of_sizes_within_one(
    make_tournament, funded, django_capture_on_commit_callbacks
):
    tournament = make_tournament(**FREEZEOUT, max_players=7, seats_per_table=4)
    players = [funded() for _ in range(7)]
    _fill(tournament, players, django_capture_on_commit_callbacks)

    tables = Table.objects.filter(tournament_id=tournament.pk).order_by("tournament_table")
    assert [Seat.objects.filter(table=t).count() for t in tables] == [4, 3]
    assert all(t.current_hand_id is not None for t in tables)  # each dealt its first hand
    assert _chips_in_play(tournament) == 7 * tournament.starting_stack
