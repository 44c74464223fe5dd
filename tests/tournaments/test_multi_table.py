"""Scheduled multi-table tournaments in the director: the start at ``starts_at`` (or the
cancellation of one too few registered for), the field balanced after every hand by the
balancer's plan (moves, broken tables, the final table), tables held while waiting, and
hand-for-hand on the money bubble with the round's busts placed together.

The balancing tests end the hands themselves, as the dealer does (the busted lose their
chips and leave, the director hears of it in one transaction), with the tables held from
dealing: each hand's end is then one the test chose."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone

from core.errors import Forbidden
from handhistory.store import SYSTEM, stream_events
from handhistory.verification import verify_stream
from ledger.models import AccountKind
from poker import tournament_hooks
from poker.commands.play import table_act
from poker.commands.tournament import table_deal, table_move_out
from poker.models import Seat, Table
from poker.selectors import table_view
from tests.support.poker import actor_for, key
from tests.support.tournaments import cash, records, tournament_balances
from tournaments.director import (
    hand_finished,
    may_deal,
    tournament_start,
    tournaments_resume,
    tournaments_start_due,
)
from tournaments.errors import TournamentNotFound
from tournaments.models import Entry, Tournament
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db

LEVELS = [{"small_blind": 10, "big_blind": 20, "ante": 0, "hands": 50}]
#: Five places paid: the bubble is at six players left.
FIVE_PAID = ["40", "25", "15", "12", "8"]


def _scheduled(make_tournament, **overrides):
    """A scheduled freezeout an hour away (the tests bring its time with ``_due``)."""
    return make_tournament(
        **{
            "bounty": 0,
            "levels": LEVELS,
            "start": timezone.now() + timedelta(hours=1),
            "min_players": 4,
            "max_players": 40,
            **overrides,
        }
    )


def _due(tournament):
    """The clock reaches the tournament's start."""
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=timezone.now() - timedelta(seconds=1)
    )


def _registered(make_tournament, funded, players, **overrides):
    tournament = _scheduled(make_tournament, **overrides)
    users = [funded() for _ in range(players)]
    for user in users:
        tournament_register(tournament_id=tournament.pk, player=user)
    return tournament, users


class Hold:
    """Holds every tournament table from dealing (the test ends the hands) until
    ``release``, which puts the director's own ``may_deal`` back."""

    def __init__(self):
        self.real = tournament_hooks.registered()
        tournament_hooks.register(
            level_of=self.real.level_of,
            hand_finished=self.real.hand_finished,
            may_deal=lambda tournament_id, table_id: False,
        )

    def release(self):
        tournament_hooks.restore(self.real)


@pytest.fixture
def hold():
    held = Hold()
    yield held
    held.release()


@pytest.fixture
def started(make_tournament, funded, hold):
    """``started(players, **structure)``: a scheduled tournament started at its time with
    its tables held: (tournament, {table id: {seat: player}} in table order)."""

    def start(players, **overrides):
        tournament, _ = _registered(make_tournament, funded, players, **overrides)
        _due(tournament)
        tournaments_start_due()
        tournament.refresh_from_db()
        return tournament, _field(tournament)

    return start


def _field(tournament):
    """{table id: {seat: player}} of the tournament's tables not broken, in table order."""
    tournament.refresh_from_db()
    tables = (
        Table.objects.filter(tournament_id=tournament.pk)
        .exclude(pk__in=tournament.broken)
        .order_by("tournament_table")
    )
    return {
        t.pk: dict(Seat.objects.filter(table=t).values_list("number", "player_id")) for t in tables
    }


def _chips_in_play(tournament):
    return Seat.objects.filter(tournament_id=tournament.pk).aggregate(s=Sum("chips"))["s"] or 0


def _types(tournament):
    return [e.type for e in stream_events(tournament.stream)]


def _payloads(tournament, type_):
    return [e.payload for e in stream_events(tournament.stream) if e.type == type_]


_hands = itertools.count(900_000)


def _end_hand(capture, table_id, busted=()):
    """Ends a hand at ``table_id`` as the dealer does: the ``busted`` lose their chips to
    another player of the table and leave it, and the director hears of the stacks in
    the same transaction (its moves made after the commit). Returns the hand's number."""
    seats = {s.player_id: s for s in Seat.objects.filter(table_id=table_id)}
    stacks = {player: seat.chips for player, seat in seats.items()}
    winner = next(p for p in seats if p not in busted)
    for player in busted:
        stacks[winner] += stacks[player]
        stacks[player] = 0
    Seat.objects.filter(pk=seats[winner].pk).update(chips=stacks[winner])
    Seat.objects.filter(table_id=table_id, player_id__in=busted).delete()
    # A new version, as a command writes: no process's copy of the table stays current.
    Table.objects.filter(pk=table_id).update(version=F("version") + 1)
    hand = next(_hands)
    with capture(execute=True), transaction.atomic():
        hand_finished(table_id, hand, stacks, list(busted), {})
    return hand


def _fold_out(capture, table_id):
    """Plays the running hand at ``table_id`` to its end: everyone checks or folds."""
    hand = Table.objects.get(pk=table_id).current_hand_id
    while Table.objects.get(pk=table_id).current_hand_id == hand:
        view = table_view(table_id=table_id, viewer_id=None)
        actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
        legal = table_view(table_id=table_id, viewer_id=actor)["you"]["legal_actions"]
        action = "check" if "check" in legal["actions"] else "fold"
        user = get_user_model().objects.get(pk=actor)
        with capture(execute=True):
            table_act(
                table_id=table_id,
                player_id=actor,
                action=action,
                amount=None,
                key=key(),
                actor=actor_for(user),
            )


# --- the scheduled start -----------------------------------------------------------------


def test_a_scheduled_tournament_starts_at_its_time_on_tables_drawn_within_one(
    make_tournament, funded
):
    tournament, users = _registered(make_tournament, funded, 14, seats_per_table=6)
    _due(tournament)

    assert tournaments_start_due() == 1

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.seated
    tables = Table.objects.filter(tournament_id=tournament.pk).order_by("tournament_table")
    assert [t.tournament_table for t in tables] == [1, 2, 3]
    assert [Seat.objects.filter(table=t).count() for t in tables] == [5, 5, 4]
    assert all(t.current_hand_id is not None for t in tables)  # each dealt its first hand
    seated = Seat.objects.filter(tournament_id=tournament.pk)
    assert sorted(seated.values_list("player_id", flat=True)) == sorted(u.pk for u in users)
    assert _chips_in_play(tournament) == 14 * tournament.starting_stack
    (draw,) = _payloads(tournament, "TournamentStarted")
    assert [t["table"] for t in draw["tables"]] == [t.pk for t in tables]


def test_a_second_sweep_over_a_started_tournament_does_nothing(make_tournament, funded):
    tournament, _ = _registered(make_tournament, funded, 8, seats_per_table=6)
    _due(tournament)
    tournaments_start_due()
    before = records(), Table.objects.count(), Seat.objects.count()

    assert tournaments_start_due() == 0

    assert (records(), Table.objects.count(), Seat.objects.count()) == before
    assert _types(Tournament.objects.get(pk=tournament.pk)).count("TournamentStarted") == 1


def test_a_scheduled_tournament_not_due_is_neither_started_nor_cancelled(make_tournament, funded):
    tournament, _ = _registered(make_tournament, funded, 8)
    before = records()

    assert tournaments_start_due() == 0
    assert tournament_start(tournament_id=tournament.pk).status == Tournament.Status.REGISTERING

    assert records() == before
    assert not Table.objects.filter(tournament_id=tournament.pk).exists()


def test_a_scheduled_tournament_with_too_few_players_is_cancelled_with_full_refunds(
    make_tournament, funded
):
    tournament, users = _registered(make_tournament, funded, 3, min_players=4)
    _due(tournament)

    tournaments_start_due()
    after_first = records()
    tournaments_start_due()

    assert records() == after_first  # the second sweep does nothing
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "too few players: 3 registered, 4 needed"
    assert all(cash(u) == 10_000 for u in users)
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 0,
        AccountKind.TOURNAMENT_BOUNTY: 0,
    }
    assert set(Entry.objects.filter(tournament=tournament).values_list("status", flat=True)) == {
        Entry.Status.REFUNDED
    }
    assert verify_stream(stream_events(tournament.stream)) == []
    (cancelled,) = _payloads(tournament, "TournamentCancelled")
    assert cancelled == {
        "reason": "too few players: 3 registered, 4 needed",
        "staff_id": None,
        "refunded_entries": 3,
        "refunded": 3 * 1_100,
    }
    assert not Table.objects.filter(tournament_id=tournament.pk).exists()


def test_a_start_cut_short_is_finished_by_the_next_sweep_seating_everyone_once(
    make_tournament, funded, monkeypatch
):
    from tournaments import director

    tournament, users = _registered(make_tournament, funded, 10, seats_per_table=6)
    _due(tournament)
    seat = director.table_seat_tournament_player
    calls = itertools.count()

    def crashing(**kwargs):
        if next(calls) == 6:
            raise RuntimeError("the process died")
        return seat(**kwargs)

    monkeypatch.setattr(director, "table_seat_tournament_player", crashing)
    with pytest.raises(RuntimeError):
        tournaments_start_due()
    assert Seat.objects.filter(tournament_id=tournament.pk).count() == 6
    assert not Tournament.objects.get(pk=tournament.pk).seated
    monkeypatch.setattr(director, "table_seat_tournament_player", seat)

    assert tournaments_start_due() == 1
    assert tournaments_start_due() == 0

    tournament.refresh_from_db()
    assert tournament.seated and _types(tournament).count("TournamentStarted") == 1
    seated = Seat.objects.filter(tournament_id=tournament.pk)
    assert sorted(seated.values_list("player_id", flat=True)) == sorted(u.pk for u in users)


# --- balancing after every hand ------------------------------------------------------------


def test_a_table_two_players_short_gets_the_big_blind_of_the_fullest_at_its_hand_end(
    started, django_capture_on_commit_callbacks
):
    tournament, field = started(12, seats_per_table=6)
    first, second = field
    chips = _chips_in_play(tournament)
    due_big_blind = sorted(field[second])[2]  # no button yet: the third seat posts it

    hand = _end_hand(django_capture_on_commit_callbacks, first, list(field[first].values())[:2])

    after = _field(tournament)
    assert [len(after[first]), len(after[second])] == [5, 5]
    (moved,) = _payloads(tournament, "PlayerMoved")
    assert moved["from_table"] == second and moved["from_seat"] == due_big_blind
    assert moved["to_table"] == first and moved["hand"] == hand
    assert moved["user_id"] == field[second][due_big_blind] == after[first][moved["to_seat"]]
    assert tournament.moves == [] and tournament.waiting == []
    assert _chips_in_play(tournament) == chips


def test_a_move_cut_short_by_a_crash_is_finished_by_the_sweeper_once(
    started, django_capture_on_commit_callbacks, monkeypatch
):
    from tournaments import director

    tournament, field = started(12, seats_per_table=6)
    first, second = field
    seat = director.table_seat_tournament_player

    def crashing(**kwargs):
        raise RuntimeError("the process died")

    monkeypatch.setattr(director, "table_seat_tournament_player", crashing)
    _end_hand(django_capture_on_commit_callbacks, first, list(field[first].values())[:2])

    tournament.refresh_from_db()
    (move,) = tournament.moves  # recorded, half made: out of its table, in none
    assert not Seat.objects.filter(player_id=move["player"]).exists()
    assert not may_deal(tournament.pk, first) and not may_deal(tournament.pk, second)
    monkeypatch.setattr(director, "table_seat_tournament_player", seat)

    assert tournaments_resume() == 1
    before = records(), Seat.objects.count()
    tournaments_resume()  # once made, nothing is made twice
    assert (records(), Seat.objects.count()) == before

    tournament.refresh_from_db()
    assert tournament.moves == []
    assert Seat.objects.get(player_id=move["player"]).table_id == first
    assert _field(tournament)[first][move["seat"]] == move["player"]
    assert _chips_in_play(tournament) == 12 * tournament.starting_stack
    assert len(_payloads(tournament, "PlayerMoved")) == 1


def test_a_table_that_can_be_spared_is_broken_into_the_others_once(
    started, django_capture_on_commit_callbacks
):
    tournament, field = started(14, seats_per_table=6)  # 5, 5, 4
    first, second, third = field

    hand = _end_hand(django_capture_on_commit_callbacks, third, list(field[third].values())[:2])
    _end_hand(django_capture_on_commit_callbacks, first)

    after = _field(tournament)
    assert list(after) == [first, second]
    assert [len(seats) for seats in after.values()] == [6, 6]
    assert not Seat.objects.filter(table_id=third).exists()
    assert tournament.broken == [third]
    assert _payloads(tournament, "TableBroken") == [{"table": third, "hand": hand}]
    moved = _payloads(tournament, "PlayerMoved")
    assert sorted(m["user_id"] for m in moved) == sorted(
        p for p in field[third].values() if Seat.objects.filter(player_id=p).exists()
    )
    assert {m["from_table"] for m in moved} == {third}


def test_when_the_players_fit_one_table_the_final_table_is_drawn_anew(
    started, django_capture_on_commit_callbacks
):
    tournament, field = started(8, seats_per_table=6)  # 4, 4
    first, second = field

    hand = _end_hand(django_capture_on_commit_callbacks, second, list(field[second].values())[:2])

    after = _field(tournament)
    assert list(after) == [first] and len(after[first]) == 6
    assert _payloads(tournament, "TableBroken") == [{"table": second, "hand": hand}]
    assert _payloads(tournament, "FinalTableFormed") == [{"table": first, "hand": hand}]
    moved = _payloads(tournament, "PlayerMoved")
    assert sorted(m["user_id"] for m in moved) == sorted(after[first].values())
    assert {(m["to_table"], m["to_seat"]) for m in moved} == {(first, s) for s in after[first]}
    assert _chips_in_play(tournament) == 8 * tournament.starting_stack


def test_a_table_three_short_of_the_fullest_waits_until_a_player_is_moved_to_it(
    started, hold, django_capture_on_commit_callbacks
):
    tournament, field = started(12, seats_per_table=6)
    first, second = field
    hold.release()
    table_deal(table_id=second, actor=SYSTEM)  # the fullest is mid-hand

    _end_hand(django_capture_on_commit_callbacks, first, list(field[first].values())[:3])

    tournament.refresh_from_db()
    assert tournament.waiting == [first] and not _payloads(tournament, "PlayerMoved")
    assert not may_deal(tournament.pk, first) and may_deal(tournament.pk, second)
    assert table_deal(table_id=first, actor=SYSTEM)["noop"] is True
    assert Table.objects.get(pk=first).current_hand_id is None

    _fold_out(django_capture_on_commit_callbacks, second)  # the fullest's hand ends

    after = _field(tournament)
    assert [len(after[first]), len(after[second])] == [4, 5]
    assert tournament.waiting == [] and tournament.moves == []
    assert len(_payloads(tournament, "PlayerMoved")) == 1
    # Both deal again: the short table once balanced, the giver once its player moved.
    assert all(t.current_hand_id is not None for t in Table.objects.filter(pk__in=[first, second]))


# --- hand-for-hand on the bubble -------------------------------------------------------------


@pytest.mark.parametrize(
    ("stacks", "places"),
    [((1_500, 1_500), ((5, 6), (5, 6))), ((1_000, 2_000), ((6, 6), (5, 5)))],
    ids=["equal-stacks-share", "larger-stack-places-higher"],
)
def test_busts_at_two_tables_in_one_hand_for_hand_round_are_placed_together(
    started, django_capture_on_commit_callbacks, stacks, places
):
    capture = django_capture_on_commit_callbacks
    tournament, field = started(8, seats_per_table=4, payouts=FIVE_PAID)  # 4, 4
    first, second = field
    _end_hand(capture, first, [field[first][min(field[first])]])  # 7 left
    _end_hand(capture, second, [field[second][min(field[second])]])  # 6: the bubble

    tournament.refresh_from_db()
    assert tournament.hand_for_hand == {"finished": [second], "busts": []}
    assert tournament.waiting == [second]  # done with its hand: waits for the other
    assert may_deal(tournament.pk, first) and not may_deal(tournament.pk, second)
    _end_hand(capture, first)  # the round is over, nobody busted: a new round
    tournament.refresh_from_db()
    assert tournament.hand_for_hand == {"finished": [], "busts": []}
    assert tournament.waiting == []

    a, b = (next(iter(_field(tournament)[t].values())) for t in (second, first))
    for player, stack in zip((a, b), stacks, strict=True):
        Entry.objects.filter(tournament=tournament, player_id=player).update(chips=stack)
    _end_hand(capture, second, [a])
    assert Entry.objects.get(tournament=tournament, player_id=a).place is None  # not yet
    assert not may_deal(tournament.pk, second)
    _end_hand(capture, first, [b])

    tournament.refresh_from_db()
    rows = {
        e.player_id: (e.place, e.last_place) for e in Entry.objects.filter(player_id__in=[a, b])
    }
    assert (rows[a], rows[b]) == places
    assert tournament.hand_for_hand is None  # in the money
    busted = {p["user_id"]: p for p in _payloads(tournament, "PlayerBusted")}
    assert busted[a]["hand"] != busted[b]["hand"]


# --- refusals ------------------------------------------------------------------------------


def test_moving_a_player_seated_in_another_tournament_is_refused_and_changes_nothing(started):
    _, field = started(6, seats_per_table=6)
    _, other_field = started(6, seats_per_table=6)
    (table,), (elsewhere,) = field, other_field
    stranger = next(iter(other_field[elsewhere].values()))
    before = records(), Seat.objects.count()

    with pytest.raises(Forbidden) as refused:
        table_move_out(table_id=table, player_id=stranger, key=key(), actor=SYSTEM)

    assert refused.value.code == "not_seated"
    assert (records(), Seat.objects.count()) == before


def test_a_deal_asked_for_a_tournament_that_does_not_exist_is_refused():
    with pytest.raises(TournamentNotFound):
        may_deal(999_999, 1)
