"""The table path's working set: a process's cached copy is used only when it is current,
and a failed command never leaves its half-changed copy behind."""

import copy

import pytest

from handhistory.models import Event, Hand
from handhistory.verification import verify_chains
from ledger.models import Transfer
from poker import table_io
from poker.commands.play import table_act
from poker.commands.seating import table_sit
from poker.engine.betting import legal_actions
from poker.hands import hand_state
from poker.models import Table
from poker.storage import postgres
from poker.storage.postgres import PostgresTableStore
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db(transaction=True)


def _start(table, player, players=3):
    t = table()
    users = {}
    for _ in range(players):
        u = player()
        users[u.pk] = u
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    return t, users


def _to_act(t):
    """(player id, a legal passive action) for the running hand, read from the database."""
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    state = hand_state(hand, use_snapshot=False)[0]
    legal = legal_actions(state)
    return hand.player_ids[legal.actor], ("check" if "check" in legal.actions else "call")


def _act(t, users):
    pid, action = _to_act(t)
    return table_act(table_id=t.pk, player_id=pid, action=action, key=key(),
                     actor=actor_for(users[pid]))  # fmt: skip


def test_a_working_set_left_behind_by_another_process_is_not_used(table, player):
    t, users = _start(table, player)
    _act(t, users)
    stale = copy.deepcopy(table_io._CACHE)  # what this process knew after the first action
    _act(t, users)  # a command this process's old copy does not know about...
    table_io._CACHE.update(stale)  # ...as if another process had committed it
    assert table_io._CACHE[t.pk].table.version < Table.objects.get(pk=t.pk).version
    # The next player acts on the real state, not on the stale copy (on which the same
    # player would, heads-up on the flop, repeat the last decision and deal the flop again).
    _act(t, users)
    assert verify_chains()[1] == []
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    stream = Event.objects.filter(stream=hand.stream)
    assert stream.filter(type="BoardDealt").count() == 1
    replayed = hand_state(hand, use_snapshot=False)[0]  # the events replay cleanly...
    assert table_io._CACHE[t.pk].state == replayed  # ...to the state the service holds


def test_a_working_set_of_an_earlier_table_with_the_same_id_is_not_used(table, player):
    """A database reset under a running process reuses table ids, and versions coincide."""
    from datetime import timedelta

    t, users = _start(table, player)
    _act(t, users)
    stale = copy.deepcopy(table_io._CACHE[t.pk])
    _act(t, users)
    # The old copy, as if left by an earlier table 1 that was at this version too.
    stale.table.created_at -= timedelta(days=1)
    stale.table.version = Table.objects.get(pk=t.pk).version
    table_io._CACHE[t.pk] = stale
    _act(t, users)
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    assert Event.objects.filter(stream=hand.stream, type="BoardDealt").count() == 1
    assert table_io._CACHE[t.pk].state == hand_state(hand, use_snapshot=False)[0]
    assert verify_chains()[1] == []


def test_a_locked_command_does_not_use_the_copy_of_an_earlier_table_with_the_same_id(table, player):
    """As above, for a command that always takes the lock (chat): the copy's table row is
    at the current version but was created earlier, so the command loads its own."""
    from datetime import timedelta

    from poker.commands.chat import table_chat

    t, users = _start(table, player)
    stale = copy.deepcopy(table_io._CACHE[t.pk])
    _act(t, users)
    stale.table.created_at -= timedelta(days=1)
    stale.table.version = Table.objects.get(pk=t.pk).version
    table_io._CACHE[t.pk] = stale
    chatter = next(iter(users.values()))
    table_chat(table_id=t.pk, player_id=chatter.pk, text="hi", key=key(), actor=actor_for(chatter))
    assert Event.objects.filter(stream=f"table-{t.pk}", type="ChatPosted").count() == 1
    assert table_io._CACHE[t.pk].table.created_at == Table.objects.get(pk=t.pk).created_at
    assert verify_chains()[1] == []


def test_a_failed_command_leaves_no_half_changed_working_set(table, player, monkeypatch):
    t, users = _start(table, player)
    _act(t, users)
    events, transfers = Event.objects.count(), Transfer.objects.count()
    version = Table.objects.get(pk=t.pk).version

    def broken_write(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(PostgresTableStore, "write", broken_write)
    pid, action = _to_act(t)
    with pytest.raises(RuntimeError):
        table_act(table_id=t.pk, player_id=pid, action=action, key=key(),
                  actor=actor_for(users[pid]))  # fmt: skip
    monkeypatch.undo()
    assert t.pk not in table_io._CACHE  # the copy the failed command changed is gone
    assert (Event.objects.count(), Transfer.objects.count()) == (events, transfers)
    assert Table.objects.get(pk=t.pk).version == version
    # The same player's turn again, from the committed state.
    assert _to_act(t)[0] == pid
    _act(t, users)
    assert Table.objects.get(pk=t.pk).version == version + 1
    assert verify_chains()[1] == []


def test_the_view_a_command_publishes_is_the_view_read_from_the_database(table, player):
    from poker.selectors import table_view, view_at

    t, users = _start(table, player)
    viewers = [*users, None, 10**9]  # the players, an anonymous spectator, a stranger
    compared = 0
    for _ in range(40):  # several hands: deals, turns, showdowns, the next hand's start
        _act(t, users)
        version = Table.objects.get(pk=t.pk).version
        for viewer in viewers:
            fast = view_at(table_id=t.pk, viewer_id=viewer, version=version)
            assert fast == table_view(table_id=t.pk, viewer_id=viewer)
            compared += 1
        assert view_at(table_id=t.pk, viewer_id=None, version=version - 1) is None
    assert compared == 40 * len(viewers)


@pytest.mark.parametrize("joined_mid_hand", [False, True])
def test_a_finished_hand_is_projected_as_its_events_rebuild_it(table, player, joined_mid_hand):
    """The projection is computed from the events this process holds, or, when it took
    the table over mid-hand (another process ran the start), from the events read back."""
    from django.core.management import call_command

    from handhistory.models import HandSummary, PlayerHandResult

    t, users = _start(table, player)
    first = Table.objects.get(pk=t.pk).current_hand_id
    _act(t, users)
    if joined_mid_hand:
        table_io._CACHE.clear()
    while Table.objects.get(pk=t.pk).current_hand_id == first:
        _act(t, users)
    assert Hand.objects.get(pk=first).ended_at is not None

    def rows():
        return (
            list(HandSummary.objects.filter(hand_id=first).values()),
            list(PlayerHandResult.objects.filter(hand_id=first).order_by("player_id")
                 .values("player_id", "seat", "starting_stack", "final_stack", "net", "won",
                         "showed", "ended_at")),
        )  # fmt: skip

    before = rows()
    assert before[0] and len(before[1]) == len(Hand.objects.get(pk=first).player_ids)
    call_command("rebuild_projections")
    assert rows() == before


def _spy_statements(monkeypatch):
    """Records (first line of SQL, inside a transaction?) for every raw table-path
    statement this thread runs."""
    import threading

    from django.db import connection

    calls = []
    real = postgres.run_prepared
    me = threading.get_ident()

    def spy(sql, params):
        if threading.get_ident() == me:
            calls.append((sql.strip().splitlines()[0], connection.in_atomic_block))
        return real(sql, params)

    monkeypatch.setattr(postgres, "run_prepared", spy)
    return calls


def test_a_plain_action_on_a_current_working_set_is_one_statement_and_its_own_transaction(
    table, player, monkeypatch
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    t, users = _start(table, player)
    pid, action = _to_act(t)  # preflop, first to act: the hand goes on
    version = Table.objects.get(pk=t.pk).version
    calls = _spy_statements(monkeypatch)
    with CaptureQueriesContext(connection) as orm:
        table_act(table_id=t.pk, player_id=pid, action=action, key=key(),
                  actor=actor_for(users[pid]))  # fmt: skip
    monkeypatch.undo()
    assert len(calls) == 1 and calls[0][1] is False  # the guarded write, autocommitted
    assert len(orm) == 0
    assert Table.objects.get(pk=t.pk).version == version + 1
    assert verify_chains()[1] == []


def test_a_copy_that_another_command_overtook_before_its_write_applies_once_on_the_new_state(
    table, player, monkeypatch
):
    """Another process commits between this one's read of its copy and its write: the
    guarded write changes nothing, and the command runs again under the table lock."""
    from poker.commands.chat import table_chat

    t, users = _start(table, player)
    pid, action = _to_act(t)
    version = Table.objects.get(pk=t.pk).version
    chatter = next(u for u in users.values() if u.pk != pid)
    real_write = PostgresTableStore.write
    overtaken = []

    def write_after_a_chat(*args, **kwargs):
        if not overtaken:
            overtaken.append(True)
            import threading

            def chat():
                from django.db import connection

                table_chat(table_id=t.pk, player_id=chatter.pk, text="hi", key=key(),
                           actor=actor_for(chatter))  # fmt: skip
                connection.close()

            thread = threading.Thread(target=chat)
            thread.start()
            thread.join()
        return real_write(*args, **kwargs)

    monkeypatch.setattr(PostgresTableStore, "write", write_after_a_chat)
    calls = _spy_statements(monkeypatch)
    table_act(table_id=t.pk, player_id=pid, action=action, key=key(), actor=actor_for(users[pid]))
    monkeypatch.undo()
    assert [locked for _, locked in calls] == [False, True, True]  # guarded write, lock, write
    assert Table.objects.get(pk=t.pk).version == version + 2
    table_stream = Event.objects.filter(stream=f"table-{t.pk}")
    assert table_stream.filter(type="ChatPosted").count() == 1
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    acted = Event.objects.filter(stream=hand.stream, actor_id=pid).exclude(type="HoleCardsDealt")
    assert acted.count() == 1
    assert verify_chains()[1] == []
    assert table_io._CACHE[t.pk].state == hand_state(hand, use_snapshot=False)[0]


@pytest.mark.parametrize("moved_on", [False, True])
def test_a_hand_ended_from_a_copy_settles_under_the_lock_only_if_the_copy_is_current(
    table, player, moved_on
):
    """A fold that ends the hand needs the ledger: the command takes the table lock then,
    and if the table moved on since its copy, the settlement is rolled back and the
    command runs again on the committed state."""
    from django.core.management import call_command

    from poker.commands.chat import table_chat

    t, users = _start(table, player, players=2)
    hand_id = Table.objects.get(pk=t.pk).current_hand_id
    pid, _ = _to_act(t)
    if moved_on:
        stale = copy.deepcopy(table_io._CACHE)
        chatter = next(u for u in users.values() if u.pk != pid)
        table_chat(
            table_id=t.pk, player_id=chatter.pk, text="gl", key=key(), actor=actor_for(chatter)
        )
        table_io._CACHE.update(stale)  # as if another process had committed the chat
    transfers = Transfer.objects.count()
    table_act(table_id=t.pk, player_id=pid, action="fold", key=key(), actor=actor_for(users[pid]))
    assert Hand.objects.get(pk=hand_id).ended_at is not None
    hand_events = Event.objects.filter(stream=f"hand-{hand_id}")
    assert hand_events.filter(type="PlayerFolded").count() == 1
    assert Event.objects.filter(stream=f"table-{t.pk}", type="HandFinished").count() == 1
    assert Transfer.objects.count() == transfers + 1  # the blind the folder lost, once
    call_command("verify_event_store")  # raises on a chain or settlement mismatch


def test_a_warm_action_opens_the_database_connection_a_server_closed_between_requests(
    table, player
):
    """ASGI servers close a thread's connection after each request or frame; the warm
    path's first statement is a raw one, which must open it again."""
    from django.db import connection

    t, users = _start(table, player)
    version = Table.objects.get(pk=t.pk).version
    pid, action = _to_act(t)
    connection.close()
    table_act(table_id=t.pk, player_id=pid, action=action, key=key(), actor=actor_for(users[pid]))
    assert Table.objects.get(pk=t.pk).version == version + 1


def test_a_retried_key_that_is_legal_again_on_the_new_hand_is_replayed_not_played(table, player):
    """Three-handed: the button folds, the small blind raises, the big blind folds. The
    raiser is the next button and first to act, so the same raise is legal again on the
    working set: the retry still answers the stored outcome, and the new hand, its
    events and the ledger are untouched."""
    t, users = _start(table, player)

    def act(pid, action, amount=None, k=None):
        return table_act(table_id=t.pk, player_id=pid, action=action, amount=amount,
                         key=k or key(), actor=actor_for(users[pid]))  # fmt: skip

    act(_to_act(t)[0], "fold")  # the first hand is heads-up: the third player sat during it
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    assert len(hand.player_ids) == 3
    act(_to_act(t)[0], "fold")  # the button
    pid, _ = _to_act(t)
    to = legal_actions(hand_state(hand, use_snapshot=False)[0]).min_to
    k = key()
    first = act(pid, "raise", to, k)
    act(_to_act(t)[0], "fold")
    assert _to_act(t)[0] == pid  # the new hand: the raiser acts first
    state = Table.objects.get(pk=t.pk)
    counts = Event.objects.count(), Transfer.objects.count()
    again = act(pid, "raise", to, k)
    assert again == {**first, "replayed": True}
    after = Table.objects.get(pk=t.pk)
    assert (after.version, after.current_hand_id) == (state.version, state.current_hand_id)
    assert (Event.objects.count(), Transfer.objects.count()) == counts
    assert verify_chains()[1] == []


def test_a_table_held_locked_delays_only_its_own_commands_not_another_tables(table, player):
    """One table's lock is held (a long command there): an action at another table
    completes meanwhile, and an action at the held table waits for the lock and then
    applies on what it finds."""
    import threading
    import time

    from django.db import connection, transaction

    held, held_users = _start(table, player)
    other, other_users = _start(table, player)
    locked, release, done = threading.Event(), threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                Table.objects.select_for_update().get(pk=held.pk)
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    def act_at_held():
        try:
            _act(held, held_users)
        finally:
            connection.close()
            done.set()

    pid, _ = _to_act(held)
    version = Table.objects.get(pk=held.pk).version
    holder, actor = threading.Thread(target=hold), threading.Thread(target=act_at_held)
    holder.start()
    try:
        assert locked.wait(30)
        _act(other, other_users)  # completes while the held table is locked
        actor.start()
        time.sleep(0.5)
        assert not done.is_set()  # waiting for the held table's lock
        assert Table.objects.get(pk=held.pk).version == version
    finally:
        release.set()
        holder.join()
    assert done.wait(30)
    actor.join()
    assert Table.objects.get(pk=held.pk).version == version + 1
    assert Event.objects.filter(stream__startswith="hand-", actor_id=pid).exists()
    assert verify_chains()[1] == []


@pytest.mark.parametrize(
    ("action", "amount", "version", "code"),
    [
        ("shove", None, None, "unknown_action"),
        ("raise", -5, None, "invalid_amount"),
        ("raise", "300", None, "invalid_amount"),
        ("call", None, "7", "invalid_version"),
    ],
)
def test_a_malformed_action_is_refused_before_the_table_is_touched(
    table, player, monkeypatch, action, amount, version, code
):
    """Input that is wrong whatever the table's state never reaches the database or the
    engine: no statement runs, and the warm working set stays in the cache."""
    from core.errors import InvalidRequest

    t, users = _start(table, player)
    pid, _ = _to_act(t)
    warm = table_io._CACHE[t.pk]
    calls = _spy_statements(monkeypatch)
    with pytest.raises(InvalidRequest) as refused:
        table_act(table_id=t.pk, player_id=pid, action=action, amount=amount, version=version,
                  key=key(), actor=actor_for(users[pid]))  # fmt: skip
    assert refused.value.code == code
    assert calls == []
    assert table_io._CACHE[t.pk] is warm


def test_nothing_to_do_is_answered_only_from_the_locked_table(table, player, monkeypatch):
    """A command that finds nothing to do writes nothing, so no guarded write could catch
    a stale copy: the warm attempt's "nothing" is checked again under the lock."""
    from handhistory.store import SYSTEM
    from poker.commands.runner import run_command as _run_command

    t, _ = _start(table, player)
    version = Table.objects.get(pk=t.pk).version
    calls = _spy_statements(monkeypatch)
    seen = []

    def nothing(ctx):
        seen.append(ctx.unlocked is not None)
        return None

    result = _run_command(table_id=t.pk, player_id=None, key=None, command="probe", request={},
                          actor=SYSTEM, body=nothing, unlocked=True)  # fmt: skip
    assert result == {"noop": True, "version": version}
    assert seen == [True, False]  # tried on the copy, answered under the lock
    assert [locked for _, locked in calls] == [True]  # the lock statement, in its transaction
    assert Table.objects.get(pk=t.pk).version == version
