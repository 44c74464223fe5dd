"""The command runner's contract (poker.commands.runner): a refusal is decided once, a
stale warm copy is run again under the lock, and a key already used answers with its
stored outcome without acting again."""

import copy

import pytest

from core.idempotency import IdempotencyKeyReused as KeyReused
from handhistory.models import Event, Hand
from handhistory.store import SYSTEM
from ledger.models import Transfer
from poker import table_io
from poker.commands import play
from poker.commands.play import table_act
from poker.commands.runner import TableError, run_command
from poker.commands.seating import table_sit
from poker.engine.betting import legal_actions
from poker.hands import hand_state
from poker.models import Table
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db


def _seat_three(table, player):
    t = table()
    users = {}
    for _ in range(3):
        u = player()
        users[u.pk] = u
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    return t, users


def _turn(t):
    """(player id to act, a passive legal action, a player id not to act), from the database."""
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    legal = legal_actions(hand_state(hand, use_snapshot=False)[0])
    actor = hand.player_ids[legal.actor]
    other = next(pid for pid in hand.player_ids if pid != actor)
    return actor, ("check" if "check" in legal.actions else "call"), other


def _stores():
    """What a command that did nothing must leave as it was: the events, the ledger, the
    table's version."""
    return Event.objects.count(), Transfer.objects.count()


def _counting_engine(monkeypatch):
    calls = []
    real = play.act

    def counted(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(play, "act", counted)
    return calls


def test_an_action_refused_on_the_current_warm_copy_runs_once(table, player, monkeypatch):
    t, users = _seat_three(table, player)
    assert t.pk in table_io._CACHE  # the action starts from this process's warm copy
    _, _, other = _turn(t)
    version = Table.objects.get(pk=t.pk).version
    before = _stores()
    calls = _counting_engine(monkeypatch)
    with pytest.raises(TableError) as refused:
        table_act(table_id=t.pk, player_id=other, action="check", key=key(),
                  actor=actor_for(users[other]))  # fmt: skip
    assert refused.value.code == "not_your_turn"
    assert len(calls) == 1  # decided on the warm copy, proven current: never run again
    assert _stores() == before
    assert Table.objects.get(pk=t.pk).version == version


def test_a_body_refusing_on_the_current_warm_copy_runs_once(table, player):
    t, _ = _seat_three(table, player)
    before = _stores()
    seen = []

    def refuse(ctx):
        seen.append(ctx.unlocked is not None)
        raise TableError("No.", code="probe_refused")

    with pytest.raises(TableError):
        run_command(table_id=t.pk, player_id=None, key=None, command="probe", request={},
                    actor=SYSTEM, body=refuse, unlocked=True)  # fmt: skip
    assert seen == [True]
    assert _stores() == before


def test_a_refusal_on_a_stale_warm_copy_is_decided_again_under_the_lock(table, player):
    t, users = _seat_three(table, player)
    stale = copy.deepcopy(table_io._CACHE)
    pid, action, _ = _turn(t)
    table_act(table_id=t.pk, player_id=pid, action=action, key=key(), actor=actor_for(users[pid]))
    table_io._CACHE.update(stale)  # as if another process had committed that action
    before = _stores()
    seen = []

    def refuse(ctx):
        seen.append((ctx.unlocked is not None, ctx.table.version))
        raise TableError("No.", code="probe_refused")

    with pytest.raises(TableError):
        run_command(table_id=t.pk, player_id=None, key=None, command="probe", request={},
                    actor=SYSTEM, body=refuse, unlocked=True)  # fmt: skip
    current = Table.objects.get(pk=t.pk).version
    assert seen == [(True, current - 1), (False, current)]  # the copy, then the locked table
    assert _stores() == before


def test_an_action_on_a_stale_warm_copy_is_played_on_the_current_table(table, player):
    t, users = _seat_three(table, player)
    stale = copy.deepcopy(table_io._CACHE)
    pid, action, _ = _turn(t)
    table_act(table_id=t.pk, player_id=pid, action=action, key=key(), actor=actor_for(users[pid]))
    table_io._CACHE.update(stale)
    nxt, action, _ = _turn(t)  # whose turn it really is: on the stale copy it is not theirs
    result = table_act(table_id=t.pk, player_id=nxt, action=action, key=key(),
                       actor=actor_for(users[nxt]))  # fmt: skip
    assert result["version"] == Table.objects.get(pk=t.pk).version
    assert "replayed" not in result


def test_a_key_used_again_answers_with_the_stored_outcome_without_acting(
    table, player, monkeypatch
):
    t, users = _seat_three(table, player)
    pid, action, _ = _turn(t)
    used = key()
    first = table_act(table_id=t.pk, player_id=pid, action=action, key=used,
                      actor=actor_for(users[pid]))  # fmt: skip
    assert t.pk in table_io._CACHE
    version = Table.objects.get(pk=t.pk).version
    before = _stores()
    calls = _counting_engine(monkeypatch)
    again = table_act(table_id=t.pk, player_id=pid, action=action, key=used,
                      actor=actor_for(users[pid]))  # fmt: skip
    assert again == {**first, "replayed": True}
    assert len(calls) == 1  # tried once on the warm copy, refused (not its turn): no more
    with pytest.raises(KeyReused):
        table_act(table_id=t.pk, player_id=pid, action="fold", key=used,
                  actor=actor_for(users[pid]))  # fmt: skip
    assert _stores() == before
    assert Table.objects.get(pk=t.pk).version == version


def test_an_action_the_database_aborted_to_break_a_deadlock_runs_again_and_acts_once(
    table, player, monkeypatch
):
    """PostgreSQL breaks a deadlock by aborting one transaction (SQLSTATE 40P01): that
    command rolled back whole, so the runner runs it again (on both paths) and it acts once."""
    import psycopg.errors
    from django.db import OperationalError

    t, users = _seat_three(table, player)
    actor, action, _ = _turn(t)
    events = Event.objects.count()
    tries = []
    real = play.act

    def deadlocked_twice(*args, **kwargs):
        tries.append(args[1])
        if len(tries) <= 2:  # the warm try, then the first locked one
            raise OperationalError("deadlock detected") from psycopg.errors.DeadlockDetected()
        return real(*args, **kwargs)

    monkeypatch.setattr(play, "act", deadlocked_twice)
    table_act(table_id=t.pk, player_id=actor, action=action, key=key(),
              actor=actor_for(users[actor]))  # fmt: skip
    assert len(tries) == 3
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    acted = [e for e in Event.objects.filter(stream=hand.stream).order_by("seq")[events:]]
    assert Event.objects.count() > events
    assert len({e.seq for e in acted}) == len(acted)


def test_an_error_other_than_a_deadlock_is_not_run_again(table, player, monkeypatch):
    from django.db import OperationalError

    t, users = _seat_three(table, player)
    actor, action, _ = _turn(t)
    before, tries = _stores(), []

    def broken(*args, **kwargs):
        tries.append(args[1])
        raise OperationalError("server closed the connection")

    monkeypatch.setattr(play, "act", broken)
    with pytest.raises(OperationalError):
        table_act(table_id=t.pk, player_id=actor, action=action, key=key(),
                  actor=actor_for(users[actor]))  # fmt: skip
    assert len(tries) == 1
    assert _stores() == before


# Two tables' commands run in threads on connections of their own.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["warm", "locked"])
def test_two_tables_locking_the_same_accounts_in_opposite_orders_both_act_once(
    table, player, monkeypatch, path
):
    """A real PostgreSQL deadlock: two tables' actions, each inside its transaction, lock
    two shared ledger accounts in opposite orders (as a settlement taking the house's
    account and then a cash-out to a wallet the other table is buying in from would).
    PostgreSQL aborts one; the runner runs it again (from a warm copy: under the lock;
    under the lock: under it again), and each action happens once."""
    import threading

    from django.db import connection

    from ledger.models import Account
    from tests.support.threads import concurrently

    first, second = [_seat_three(table, player) for _ in range(2)]
    shared = sorted(Account.objects.filter(kind="player_cash").values_list("pk", flat=True))[:2]
    order = {first[0].pk: shared, second[0].pk: shared[::-1]}
    both_hold_one = threading.Barrier(2, timeout=20)
    running = threading.local()
    tries: list[int] = []
    real = play.act

    def locking_in_order(*args, **kwargs):
        tries.append(running.table)
        a, b = order[running.table]
        with connection.cursor() as cursor:  # (an unlocked try takes the table lock first)
            cursor.execute("SELECT id FROM ledger_account WHERE id = %s FOR UPDATE", [a])
            if tries.count(running.table) == 1:
                both_hold_one.wait()
            cursor.execute("SELECT id FROM ledger_account WHERE id = %s FOR UPDATE", [b])
        return real(*args, **kwargs)

    def act_at(t, users):
        running.table = t.pk
        pid, action, _ = _turn(t)
        if path == "locked":
            table_io._CACHE.pop(t.pk)  # no warm copy: the command starts under the lock
        return table_act(table_id=t.pk, player_id=pid, action=action, key=key(),
                         actor=actor_for(users[pid]))  # fmt: skip

    before = Event.objects.order_by("-position").values_list("position", flat=True).first()
    monkeypatch.setattr(play, "act", locking_in_order)
    results = concurrently(*[lambda t=t, u=u: act_at(t, u) for t, u in (first, second)])
    assert all(isinstance(r, dict) for r in results), results
    assert len(tries) == 3, tries  # one of the two ran again
    for t, _ in (first, second):
        hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
        acted = Event.objects.filter(stream=hand.stream, position__gt=before)
        assert acted.filter(type__in=["PlayerCalled", "PlayerChecked"]).count() == 1
