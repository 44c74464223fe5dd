"""Kill the server in the middle of a hand, start it again: the hand continues from its
events, and at the end stacks, ledger and event store agree. Kill it while a command is
in flight: the command either fully happened or left no trace, and its client key,
retried, applies it exactly once."""

import contextlib
import time
import uuid

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, connection, transaction
from rest_framework.authtoken.models import Token

from handhistory.models import Event, Hand
from handhistory.verification import verify_chains
from ledger.audit import ledger_audit
from ledger.models import Account, Transfer
from poker.engine.events import event_from_dict
from poker.engine.transitions import replay
from poker.models import Seat, Table, TableCommand
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _poll(what, check, seconds=120):
    """``check()``'s first truthy value, polled (a slow machine gets generous time)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds}s waiting for {what}")


def _turn(server, table_id, tokens):
    """(token of the player to act, their view of the table)."""
    _, view = server.call("GET", f"/api/v1/tables/{table_id}/state/", tokens[0])
    actor_seat = view["hand"]["actor_seat"]
    for token in tokens:
        status, mine = server.call("GET", f"/api/v1/tables/{table_id}/state/", token)
        assert status == 200, mine
        if mine["you"]["seat"] == actor_seat:
            return token, mine
    raise AssertionError(f"nobody sits at the actor's seat {actor_seat}")


def _sit_all(server, table_id, tokens):
    for token in tokens:
        status, body = server.call(
            "POST", f"/api/v1/tables/{table_id}/sit/", token, {"buy_in": 10_000}
        )
        assert status in (200, 201), body


def _act_as_turn_holder(server, table_id, tokens, prefer):
    """The player to act takes ``prefer`` if legal (else check/call); returns the hand id."""
    token, view = _turn(server, table_id, tokens)
    mine = view["you"]["legal_actions"]
    action = (
        prefer if prefer in mine["actions"] else ("check" if "check" in mine["actions"] else "call")
    )
    status, body = server.call(
        "POST", f"/api/v1/tables/{table_id}/actions/", token, {"action": action}
    )
    assert status == 200, body
    return view["hand"]["id"]


def _assert_settled_as_replayed(hand_id):
    """The ledger is sound, and each seat's stake holds exactly that player's final stack
    as the hand's events replay it (the next hand moves no money before it ends)."""
    report = ledger_audit()
    assert report.ok, report.render()
    hand = Hand.objects.get(pk=hand_id)
    assert hand.ended_at is not None
    payloads = (
        Event.objects.filter(stream=hand.stream).order_by("seq").values_list("payload", flat=True)
    )
    state = replay(event_from_dict(p) for p in payloads)
    assert state.is_over
    stakes = [
        Seat.objects.get(table_id=hand.table_id, player_id=pid).stake_account.balance
        for pid in hand.player_ids
    ]
    assert stakes == list(state.stacks)
    return state


@pytest.fixture
def limped(table, player):
    """A heads-up hand on a real server subprocess, after the button limped: (table,
    tokens, server, hand id). The shot clock is an hour, so no one times out while a
    slow machine restarts the server. The server is stopped after the test."""
    t = table(action_seconds=3_600)
    tokens = [Token.objects.create(user=player()).key for _ in range(2)]
    server = Server()
    try:
        server.start()
        _sit_all(server, t.pk, tokens)
        yield t, tokens, server, _act_as_turn_holder(server, t.pk, tokens, "call")
    finally:
        server.stop()


def test_hand_survives_a_server_kill_and_settles_consistently(limped):
    t, tokens, server, hand_id = limped
    try:
        hole_before = {
            tok: server.call("GET", f"/api/v1/tables/{t.pk}/state/", tok)[1]["you"]["hole_cards"]
            for tok in tokens
        }

        server.kill()  # mid-hand, no graceful shutdown
        server.start()

        status, view = server.call("GET", f"/api/v1/tables/{t.pk}/state/", tokens[0])
        assert status == 200
        assert view["hand"]["id"] == hand_id
        for tok in tokens:
            assert (
                server.call("GET", f"/api/v1/tables/{t.pk}/state/", tok)[1]["you"]["hole_cards"]
                == hole_before[tok]
            )
        # Play the hand out by checking/calling to showdown.
        while Hand.objects.get(pk=hand_id).ended_at is None:
            _act_as_turn_holder(server, t.pk, tokens, "check")
    finally:
        server.stop()

    call_command("verify_event_store")
    stakes = sum(
        Account.objects.get(pk=s.stake_account_id).balance for s in Seat.objects.filter(table=t)
    )
    assert stakes == 20_000  # no rake at this table: every chip is still on it
    _assert_settled_as_replayed(hand_id)


# --- a command in flight when the server dies ------------------------------------------------


def _footprint(table_id, hand_id, player_id, key):
    """Everything a table command can write, as seen from outside."""
    return {
        "version": Table.objects.get(pk=table_id).version,
        "events": Event.objects.count(),
        "hand_events": Event.objects.filter(stream=f"hand-{hand_id}").count(),
        "hands": Hand.objects.filter(table_id=table_id).count(),
        "hand_ended": Hand.objects.get(pk=hand_id).ended_at is not None,
        "transfers": Transfer.objects.count(),
        "balances": sorted(Account.objects.values_list("id", "balance", "held", "version")),
        "key_recorded": TableCommand.objects.filter(player_id=player_id, key=key).exists(),
    }


@contextlib.contextmanager
def _key_held_open(table_id, player_id, key):
    """Another session inserts the command's (player, key) record and does not commit:
    the server's command runs all its work, then waits on that unique key in its final
    write -- in flight, its transaction open -- until this session rolls back."""
    db = settings.DATABASES["default"]
    with psycopg.connect(
        dbname=db["NAME"], user=db["USER"], password=db.get("PASSWORD") or None,
        host=db["HOST"], port=db["PORT"] or None,
    ) as blocker:  # fmt: skip
        blocker.execute(
            "INSERT INTO poker_tablecommand (table_id, player_id, key, command, request_hash,"
            " result, created_at) VALUES (%s, %s, %s, 'act', 'blocker', '{}', now())",
            [table_id, player_id, key],
        )
        try:
            yield blocker.info.backend_pid
        finally:
            blocker.rollback()


def _backends_blocked_by(pid):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", [pid]
        )
        return [row[0] for row in cursor.fetchall()]


def _backend_gone(pid):
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
        return cursor.fetchone()[0] == 0


def _act_and_crash(server, table_id, tokens, action, *, check_in_flight=None):
    """The player to act sends ``action``; the server is SIGKILLed while that command is
    in flight (see ``_key_held_open``) and started again. Asserts the command happened
    fully or left no trace, that the ledger and the chains are sound, then retries the
    same key: it applies exactly once. Returns (whether it had happened, retry reply)."""
    token, view = _turn(server, table_id, tokens)
    assert action in view["you"]["legal_actions"]["actions"]
    hand_id, player_id = view["hand"]["id"], Token.objects.get(key=token).user_id
    key = uuid.uuid4().hex
    path = f"/api/v1/tables/{table_id}/actions/"
    before = _footprint(table_id, hand_id, player_id, key)

    with _key_held_open(table_id, player_id, key) as blocker:
        request = server.send(path, token, {"action": action}, key)
        (server_backend,) = _poll("the command to reach its last write",
                                  lambda: _backends_blocked_by(blocker))  # fmt: skip
        if check_in_flight is not None:
            check_in_flight()
        server.kill()
        request.close()
    # The orphaned backend finishes on its own: with an open transaction it rolls back;
    # a single autocommit statement may commit. Either is a whole command.
    _poll("the dead server's database session to end", lambda: _backend_gone(server_backend))
    server.start()

    after = _footprint(table_id, hand_id, player_id, key)
    happened = after["key_recorded"]
    if happened:
        assert after["version"] == before["version"] + 1
        assert after["hand_events"] > before["hand_events"]
    else:
        assert after == before  # not one row of it: events, hands, transfers, balances
    report = ledger_audit()
    assert report.ok, report.render()
    assert verify_chains()[1] == []

    status, body = server.call("POST", path, token, {"action": action}, key=key)
    assert status == 200, body
    assert body.get("replayed", False) is happened
    retried = _footprint(table_id, hand_id, player_id, key)
    assert retried["version"] == before["version"] + 1  # applied exactly once
    assert retried["key_recorded"]
    if happened:
        assert retried == after  # the retry only read the stored outcome
    return happened, body


def test_a_command_in_flight_when_the_server_dies_happens_fully_or_not_at_all(limped):
    t, tokens, server, hand_id = limped
    try:
        # The big blind checks, closing preflop: the flop is dealt in that command. (Today
        # this is one autocommit statement, which the dead server's session completes:
        # the command happened and the retry is answered from its record.)
        _act_and_crash(server, t.pk, tokens, "check")
        hand = Hand.objects.get(pk=hand_id)
        assert hand.ended_at is None and Table.objects.get(pk=t.pk).current_hand_id == hand_id
        _act_as_turn_holder(server, t.pk, tokens, "check")
        _act_as_turn_holder(server, t.pk, tokens, "check")  # the turn is dealt

        token, view = _turn(server, t.pk, tokens)  # first to act on the turn: bets
        status, body = server.call(
            "POST", f"/api/v1/tables/{t.pk}/actions/", token,
            {"action": "bet", "amount": view["you"]["legal_actions"]["min_to"]},
        )  # fmt: skip
        assert status == 200, body

        # The fold ends the hand: the settlement is posted, projections written and the
        # next hand started, all in the command's transaction. Kill it after the ledger
        # posting (the seats' stake rows are locked by it), before its commit.
        stake_ids = list(Seat.objects.filter(table=t).values_list("stake_account_id", flat=True))

        def settlement_posted_not_committed():
            with (
                pytest.raises(OperationalError, match="could not obtain lock"),
                transaction.atomic(),
                connection.cursor() as cursor,
            ):
                cursor.execute(
                    "SELECT id FROM ledger_account WHERE id = ANY(%s) FOR UPDATE NOWAIT",
                    [stake_ids],
                )
            assert not Transfer.objects.filter(reference=f"hand:{hand_id}").exists()

        happened, _ = _act_and_crash(
            server, t.pk, tokens, "fold", check_in_flight=settlement_posted_not_committed
        )
        assert not happened  # its transaction never committed: nothing of it is left
    finally:
        server.stop()

    state = _assert_settled_as_replayed(hand_id)
    assert sorted(state.stacks) == [9_900, 10_100]  # the folder loses the limped pot only
    types = [e.type for e in Event.objects.filter(stream=f"hand-{hand_id}")]
    # Each command's events are there exactly once.
    assert types.count("PlayerFolded") == 1 and types.count("BetPlaced") == 1
    assert types.count("PlayerChecked") == 3 and types.count("BoardDealt") == 2
    assert Transfer.objects.filter(reference=f"hand:{hand_id}").count() == 1
    assert Table.objects.get(pk=t.pk).current_hand_id not in (None, hand_id)  # play goes on
    call_command("verify_event_store")
