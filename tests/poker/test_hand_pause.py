"""The pause between hands (POKER_HAND_PAUSE_MS): a finished hand's result stays on the
table until the pause is over; then the sweeper, or any later command on the table, deals
the next hand. The server holds the pause, and tells clients when the next hand is due."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from handhistory.models import Event, Hand
from poker.commands.chat import table_chat
from poker.commands.play import table_act, timeouts_sweep
from poker.commands.seating import table_sit
from poker.commands.staff import staff_actor, table_pause
from poker.models import TableUpdate
from poker.selectors import table_view
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db


def _sit(t, user, seat=None):
    return table_sit(table_id=t.pk, player_id=user.pk, buy_in=10_000, seat=seat, key=key(),
                     actor=actor_for(user))  # fmt: skip


def _fold_the_hand(t, users):
    """The player to act folds (heads-up: that ends the hand); returns the hand's id."""
    t.refresh_from_db()
    hand = Hand.objects.get(pk=t.current_hand_id)
    view = table_view(table_id=t.pk, viewer_id=None)
    actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
    user = next(u for u in users if u.pk == actor)
    table_act(table_id=t.pk, player_id=user.pk, action="fold", key=key(), actor=actor_for(user))
    hand.refresh_from_db()
    assert hand.ended_at is not None
    return hand.pk


def _wait_until_due(t):
    t.refresh_from_db()
    assert t.next_hand_at is not None
    time.sleep(max(0.0, (t.next_hand_at - timezone.now()).total_seconds()) + 0.05)


def _heads_up(settings, table, player, pause_ms):
    """Two players at a table with a pause of ``pause_ms``: a hand is running."""
    settings.POKER_HAND_PAUSE_MS = pause_ms
    t = table()
    users = [player(), player()]
    for u in users:
        _sit(t, u)
    return t, users


def _hands_begun(t):
    return Event.objects.filter(stream=t.stream, type="HandBegan").count()


def test_a_finished_hand_stays_on_the_table_for_the_pause_and_says_when_the_next_is_due(
    settings, table, player
):
    t, users = _heads_up(settings, table, player, 60_000)
    before = timezone.now()

    _fold_the_hand(t, users)

    t.refresh_from_db()
    assert t.current_hand_id is None
    assert before + timedelta(seconds=59) < t.next_hand_at <= timezone.now() + timedelta(seconds=60)
    view = table_view(table_id=t.pk, viewer_id=users[0].pk)
    assert view["hand"] is None
    assert view["next_hand_at"] == t.next_hand_at.isoformat()
    # What the watchers were sent says so too.
    update = TableUpdate.objects.get(table=t, version=t.version).payload
    assert update["public"]["next_hand_at"] == t.next_hand_at.isoformat()
    # Before it is due neither the sweeper nor a command deals.
    assert timeouts_sweep() == 0
    table_chat(table_id=t.pk, player_id=users[0].pk, text="nh", key=key(),
               actor=actor_for(users[0]))  # fmt: skip
    _sit(t, player())  # a third player sitting down does not cut the pause short
    t.refresh_from_db()
    assert t.current_hand_id is None
    assert _hands_begun(t) == 1


def test_the_sweeper_deals_the_next_hand_once_the_pause_is_over(settings, table, player):
    t, users = _heads_up(settings, table, player, 300)
    first = _fold_the_hand(t, users)
    _wait_until_due(t)

    assert timeouts_sweep() == 1
    assert timeouts_sweep() == 0  # dealt once

    t.refresh_from_db()
    assert t.current_hand_id not in (None, first)
    assert t.next_hand_at is None
    assert _hands_begun(t) == 2
    update = TableUpdate.objects.get(table=t, version=t.version).payload
    assert update["public"]["next_hand_at"] is None
    assert update["public"]["hand"]["id"] == t.current_hand_id


def test_any_command_after_the_pause_deals_the_next_hand(settings, table, player):
    t, users = _heads_up(settings, table, player, 300)
    first = _fold_the_hand(t, users)
    _wait_until_due(t)

    table_chat(table_id=t.pk, player_id=users[1].pk, text="gg", key=key(),
               actor=actor_for(users[1]))  # fmt: skip

    t.refresh_from_db()
    assert t.current_hand_id not in (None, first)
    assert t.next_hand_at is None
    assert timeouts_sweep() == 0


def test_a_pause_with_nobody_left_to_play_just_ends(settings, table, player):
    t, users = _heads_up(settings, table, player, 300)
    _fold_the_hand(t, users)
    table_pause(table_id=t.pk, actor=staff_actor(None))
    _wait_until_due(t)

    assert timeouts_sweep() == 0

    t.refresh_from_db()
    assert t.current_hand_id is None and t.next_hand_at is None
    assert _hands_begun(t) == 1


def test_with_no_pause_the_next_hand_is_dealt_by_the_command_that_ended_the_last(
    settings, table, player
):
    t, users = _heads_up(settings, table, player, 0)

    first = _fold_the_hand(t, users)

    t.refresh_from_db()
    assert t.current_hand_id not in (None, first)
    assert t.next_hand_at is None


def test_a_board_run_out_all_in_adds_a_street_at_a_time_to_the_pause(settings, table, player):
    settings.POKER_RUNOUT_STREET_MS = 10_000
    t, users = _heads_up(settings, table, player, 60_000)
    before = timezone.now()
    # Everyone all-in preflop: flop, turn and river are run out with nobody to act.
    for _ in range(2):
        view = table_view(table_id=t.pk, viewer_id=None)
        actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
        user = next(u for u in users if u.pk == actor)
        legal = table_view(table_id=t.pk, viewer_id=actor)["you"]["legal_actions"]
        if "raise" in legal["actions"]:
            table_act(table_id=t.pk, player_id=actor, action="raise", amount=legal["max_to"],
                      key=key(), actor=actor_for(user))  # fmt: skip
        else:
            table_act(table_id=t.pk, player_id=actor, action="call", key=key(),
                      actor=actor_for(user))  # fmt: skip
    t.refresh_from_db()
    assert t.current_hand_id is None
    assert t.next_hand_at >= before + timedelta(seconds=60 + 3 * 10)
    # (A hand ended by a fold pauses for the pause alone: the first test above.)
