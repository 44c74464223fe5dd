"""Breaks (issue 29): while the clock is on a break no table deals a new hand -- the hand
in progress plays out -- the detail shows the break and when it ends, and when it ends
the sweeper deals the tables again. Time is moved by setting the start in the past."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from handhistory.models import Event
from poker.models import Table
from tests.support.poker import act_randomly
from tournaments.director import may_deal, tournaments_resume
from tournaments.models import Tournament
from tournaments.selectors import tournament_detail
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db

#: Levels of 10 minutes (tests/tournaments/conftest.py), a 5-minute break after level 1.
BREAK = {"bounty": 0, "breaks": [{"after_level": 1, "minutes": 5}]}


@pytest.fixture
def started(make_tournament, funded, django_capture_on_commit_callbacks):
    """A six-player sit-and-go with a break, started: (tournament, players, its table)."""
    tournament = make_tournament(**BREAK)
    players = [funded() for _ in range(6)]
    for player in players[:-1]:
        tournament_register(tournament_id=tournament.pk, player=player)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_register(tournament_id=tournament.pk, player=players[-1])
    (table,) = Table.objects.filter(tournament_id=tournament.pk)
    return tournament, players, table


def _started_ago(tournament, minutes):
    """Moves the clock: the tournament started ``minutes`` ago."""
    started_at = timezone.now() - timedelta(minutes=minutes)
    Tournament.objects.filter(pk=tournament.pk).update(started_at=started_at)
    return started_at


def _play_out(table, players, capture):
    """Random legal actions until the hand running at ``table`` ends."""
    by_id = {p.pk: p for p in players}
    rng = random.Random(7)
    hand = Table.objects.get(pk=table.pk).current_hand_id
    assert hand is not None
    with capture(execute=True):
        while Table.objects.get(pk=table.pk).current_hand_id == hand:
            act_randomly(table.pk, by_id, rng)


def _detail(tournament):
    return tournament_detail(tournament=Tournament.objects.get(pk=tournament.pk), viewer_id=None)


def test_during_a_break_the_hand_in_progress_plays_out_and_no_table_deals_a_new_one(
    started, django_capture_on_commit_callbacks
):
    tournament, players, table = started
    started_at = _started_ago(tournament, 12)  # level 1 ended at 10: on the break

    _play_out(table, players, django_capture_on_commit_callbacks)
    tournaments_resume()

    table.refresh_from_db()
    assert table.current_hand_id is None
    assert Table.objects.get(pk=table.pk).hands_played == 1
    assert may_deal(tournament.pk, table.pk) is False
    detail = _detail(tournament)
    assert detail["status"] == "running"
    assert detail["on_break"] == {
        "after_level": 1,
        "minutes": 5,
        "ends_at": started_at + timedelta(minutes=15),
    }


def test_when_the_break_ends_the_sweeper_deals_the_tables_at_the_next_level(
    started, django_capture_on_commit_callbacks
):
    tournament, players, table = started
    _started_ago(tournament, 12)
    _play_out(table, players, django_capture_on_commit_callbacks)
    assert Table.objects.get(pk=table.pk).current_hand_id is None

    _started_ago(tournament, 16)  # the break ended at 15: level 2
    tournaments_resume()

    table.refresh_from_db()
    assert table.current_hand_id is not None
    started = Event.objects.get(stream=table.current_hand.stream, type="HandStarted")
    assert max(started.payload["blinds_or_straddles"]) == 30  # level 2: 15/30
    detail = _detail(tournament)
    assert detail["on_break"] is None and detail["level"]["number"] == 2


def test_before_the_break_the_tables_deal_and_the_detail_shows_none(
    started, django_capture_on_commit_callbacks
):
    tournament, players, table = started
    _started_ago(tournament, 9)

    _play_out(table, players, django_capture_on_commit_callbacks)

    assert Table.objects.get(pk=table.pk).current_hand_id is not None  # dealt at once
    assert _detail(tournament)["on_break"] is None
