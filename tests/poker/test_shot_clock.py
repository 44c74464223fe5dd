"""The shot clock: overdue turns are checked/folded exactly once, even with racing
sweepers and across a worker restart; repeated timeouts sit a player out."""

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from handhistory.models import Event, Hand
from poker.commands.play import table_timeout, timeouts_sweep
from poker.commands.seating import table_sit
from poker.dealer import TIMEOUTS_BEFORE_SIT_OUT
from poker.models import Seat, Table
from tests.support.poker import actor_for, key

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def _start(table, player, **overrides):
    t = table(**overrides)
    users = [player(), player()]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    t.refresh_from_db()
    return t, users


def _make_overdue(t):
    Hand.objects.filter(pk=Table.objects.get(pk=t.pk).current_hand_id).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )


def _timeouts(t):
    return Event.objects.filter(stream=f"table-{t.pk}", type="TurnTimedOut").count()


def test_turn_start_records_the_deadline_in_the_table_stream(table, player):
    t, _ = _start(table, player, action_seconds=20)
    hand = Hand.objects.get(pk=t.current_hand_id)
    turn = Event.objects.filter(stream=f"table-{t.pk}", type="TurnStarted").last()
    assert turn.payload["hand"] == hand.pk
    assert turn.payload["deadline"] == hand.deadline.isoformat()
    assert hand.deadline > timezone.now() + timedelta(seconds=19)


def test_a_turn_not_yet_due_is_left_alone(table, player):
    t, _ = _start(table, player)
    assert table_timeout(table_id=t.pk, expected_version=t.version) == {
        "noop": True,
        "version": t.version,
    }
    assert _timeouts(t) == 0


def test_a_stale_timeout_does_nothing(table, player):
    t, _ = _start(table, player)
    _make_overdue(t)
    result = table_timeout(table_id=t.pk, expected_version=t.version - 1)
    assert result["noop"] is True
    assert _timeouts(t) == 0


def test_overdue_player_is_folded_or_checked_exactly_once_with_racing_sweepers(table, player):
    t, _ = _start(table, player)
    hand_id = t.current_hand_id
    _make_overdue(t)
    barrier = threading.Barrier(2)
    counts = []

    def sweeper():
        barrier.wait()
        try:
            counts.append(timeouts_sweep())
        finally:
            connection.close()

    threads = [threading.Thread(target=sweeper) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(counts) == [0, 1]
    assert _timeouts(t) == 1
    event = Event.objects.filter(stream=f"table-{t.pk}", type="TurnTimedOut").get()
    # Heads-up pre-flop the button faces the big blind: checking is not free, so a fold.
    assert event.payload["action"] == "fold"
    assert Hand.objects.get(pk=hand_id).ended_at is not None


def test_consecutive_timeouts_sit_the_player_out(table, player):
    t, _ = _start(table, player)
    timed_out_seats = []
    for _ in range(2 * TIMEOUTS_BEFORE_SIT_OUT + 2):
        t.refresh_from_db()
        if t.current_hand_id is None:
            break
        _make_overdue(t)
        result = table_timeout(table_id=t.pk, expected_version=t.version)
        assert result.get("timed_out")
        timed_out_seats.append(result["seat"])
    sat_out = Seat.objects.get(table=t, state=Seat.State.SITTING_OUT)
    assert sat_out.consecutive_timeouts == TIMEOUTS_BEFORE_SIT_OUT
    assert timed_out_seats.count(sat_out.number) >= TIMEOUTS_BEFORE_SIT_OUT
    assert Table.objects.get(pk=t.pk).current_hand_id is None  # fewer than two active


@pytest.mark.slow
def test_a_restarted_worker_still_enforces_the_deadline(table, player):
    t, _ = _start(table, player, action_seconds=3)
    Seat.objects.filter(table=t).update(time_bank_ms=0)
    hand_id = t.current_hand_id
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_QUEUE": f"test-{uuid.uuid4().hex[:10]}",
    }

    def worker(tmp):
        # Its own process group: the embedded beat is a child process, which a kill of
        # the worker alone would leave running (orphaned, sweeping every second).
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "--pool", "solo",
             "--schedule", str(tmp), "--without-gossip", "--without-mingle", "--loglevel", "WARNING"],
            cwd=ROOT, env=env, start_new_session=True,
        )  # fmt: skip

    def kill(proc, sig):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        proc.wait(timeout=20)

    (ROOT / "var").mkdir(exist_ok=True)  # a clean clone has none yet
    first = worker(ROOT / "var" / f"beat-{uuid.uuid4().hex}")
    time.sleep(1.5)
    kill(first, signal.SIGKILL)  # the worker (and its beat) die before the deadline
    assert _timeouts(t) == 0
    second = worker(ROOT / "var" / f"beat-{uuid.uuid4().hex}")
    try:
        deadline = time.monotonic() + 45
        while _timeouts(t) == 0 and time.monotonic() < deadline:
            time.sleep(0.3)
    finally:
        kill(second, signal.SIGTERM)
        kill(second, signal.SIGKILL)  # whatever of the group did not stop
    assert _timeouts(t) == 1
    assert Hand.objects.get(pk=hand_id).ended_at is not None


def test_the_time_bank_refills_per_hand_dealt_in_up_to_its_maximum_and_is_stored(table, player):
    from poker.commands.play import table_act
    from poker.dealer import TIME_BANK_MAX_MS, TIME_BANK_REFILL_MS
    from poker.engine.betting import legal_actions
    from poker.hands import hand_state

    t, users = _start(table, player)
    initial = Seat._meta.get_field("time_bank_ms").default
    banks = set(Seat.objects.filter(table=t).values_list("time_bank_ms", flat=True))
    assert banks == {initial + TIME_BANK_REFILL_MS}  # the first hand dealt them in
    hands = 1
    while hands * TIME_BANK_REFILL_MS + initial <= TIME_BANK_MAX_MS:
        hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
        pid = hand.player_ids[legal_actions(hand_state(hand)[0]).actor]
        user = next(u for u in users if u.pk == pid)
        table_act(table_id=t.pk, player_id=pid, action="fold", key=key(), actor=actor_for(user))
        hands += 1  # the fold ends the hand; the next one deals both in again
    banks = set(Seat.objects.filter(table=t).values_list("time_bank_ms", flat=True))
    assert banks == {TIME_BANK_MAX_MS}


def test_time_beyond_the_action_time_is_charged_to_the_players_time_bank_and_stored(table, player):
    from poker.commands.play import table_act
    from poker.engine.betting import legal_actions
    from poker.hands import hand_state

    t, users = _start(table, player, action_seconds=1)
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    pid = hand.player_ids[legal_actions(hand_state(hand)[0]).actor]
    before = dict(Seat.objects.filter(table=t).values_list("player_id", "time_bank_ms"))
    time.sleep(1.4)  # 0.4 s beyond the action time
    user = next(u for u in users if u.pk == pid)
    table_act(table_id=t.pk, player_id=pid, action="call", key=key(), actor=actor_for(user))
    after = dict(Seat.objects.filter(table=t).values_list("player_id", "time_bank_ms"))
    other = next(u.pk for u in users if u.pk != pid)
    assert after[other] == before[other]
    assert before[pid] - 5_000 < after[pid] <= before[pid] - 400
