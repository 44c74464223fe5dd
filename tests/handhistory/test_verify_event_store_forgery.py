"""`manage.py verify_event_store` against forged STORED data, not an in-memory copy.

Each test plays real hands, then forges the database the way someone with direct access
would (an UPDATE or DELETE past the append-only triggers, an INSERT the triggers allow, a
correcting transfer), and expects the command to fail naming the problem.

The triggers are disabled only inside the forging transaction and enabled again before
it commits (DDL is transactional in PostgreSQL: a failure rolls the disabling back too),
so no other session ever sees a table without its guard; each test checks the guard is
back.
"""

import contextlib
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from handhistory.models import Event, Hand
from handhistory.store import event_hash
from ledger.audit import ledger_audit
from ledger.models import Transfer
from poker.models import Table
from tests.support.handhistory import raked_table_played

pytestmark = pytest.mark.django_db(transaction=True)

EVENT_GUARD = ("handhistory_event", "handhistory_event_no_update_delete")
TRANSFER_GUARD = ("ledger_transfer", "ledger_transfer_no_update_delete")


@pytest.fixture
def played(table, player):
    t, _ = raked_table_played(table, player, hands=4, seed=11)
    call_command("verify_event_store", stdout=io.StringIO())  # intact before the forgery
    return t


@contextlib.contextmanager
def _unguarded(table_name, trigger):
    """A transaction in which ``trigger`` is off; it is back on before the commit."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {table_name} DISABLE TRIGGER {trigger}")
        yield cursor
        # Deferred foreign-key checks of the forged rows run now: the table cannot be
        # altered while they are pending.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"ALTER TABLE {table_name} ENABLE TRIGGER {trigger}")


def _assert_guarded(table_name, trigger):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgenabled FROM pg_trigger WHERE tgname = %s AND tgrelid = %s::regclass",
            [trigger, table_name],
        )
        assert cursor.fetchall() == [("O",)]  # present and enabled
    with (
        pytest.raises(DatabaseError, match="refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"DELETE FROM {table_name}")


def _verify_fails():
    """Runs the command, expecting it to fail; returns (stdout, PROBLEM lines)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="verification FAILED"):
        call_command("verify_event_store", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue().splitlines()


def _finished_hands(t):
    return list(Hand.objects.filter(table=t, ended_at__isnull=False).order_by("pk"))


def _rehash(row, **changes):
    """The hash ``row`` would have with ``changes``: what a forger who knows the scheme
    computes to make an edited row look intact on its own."""
    fields = {
        f: getattr(row, f)
        for f in ("prev_hash", "stream", "seq", "type", "version", "payload", "recorded_at",
                  "actor_kind", "actor_id", "client_ip", "device_id")
    }  # fmt: skip
    fields.update(changes)
    return event_hash(**fields)


# --- (a) an event row altered in the database ----------------------------------------------------


def test_an_event_payload_altered_in_the_database_is_named(played):
    t = played
    row = Event.objects.filter(stream=t.stream, type="HandFinished").order_by("seq").first()
    forged = {seat: stack + 1_000 for seat, stack in row.payload["stacks"].items()}
    with _unguarded(*EVENT_GUARD) as cursor:
        cursor.execute(
            "UPDATE handhistory_event SET payload = jsonb_set(payload, '{stacks}', %s::jsonb) "
            "WHERE position = %s",
            [json.dumps(forged), row.position],
        )
    _assert_guarded(*EVENT_GUARD)
    row.refresh_from_db()
    assert row.payload["stacks"] == forged  # the forgery is really stored

    out, problems = _verify_fails()
    # A table-stream record nobody replays: only the hash chain can notice it.
    assert problems == [f"PROBLEM {t.stream}#{row.seq}: content does not match its hash"]
    assert "1 chain problem(s), 0 settlement problem(s)" in out


def test_an_altered_event_given_a_fresh_hash_breaks_the_next_link(played):
    t = played
    hand = _finished_hands(t)[0]
    rows = list(Event.objects.filter(stream=hand.stream).order_by("seq"))
    row = next(r for r in rows if r.type == "BlindPosted")
    payload = {**row.payload, "amount": row.payload["amount"] + 1}
    with _unguarded(*EVENT_GUARD) as cursor:
        cursor.execute(
            "UPDATE handhistory_event SET payload = %s::jsonb, hash = %s WHERE position = %s",
            [json.dumps(payload), _rehash(row, payload=payload), row.position],
        )
    _assert_guarded(*EVENT_GUARD)

    out, problems = _verify_fails()
    # The forged row is consistent with itself; its successor still chains from the
    # original row's hash.
    assert f"PROBLEM {hand.stream}#{row.seq}: content does not match its hash" not in problems
    assert f"PROBLEM {hand.stream}#{row.seq + 1}: prev_hash does not match the previous event" in (
        problems
    )
    assert "1 chain problem(s)" in out


# --- (b) a missing event in a stream ---------------------------------------------------------------


def test_an_event_deleted_from_the_middle_of_a_stream_is_named(played):
    t = played
    hand = _finished_hands(t)[-1]
    rows = list(Event.objects.filter(stream=hand.stream).order_by("seq"))
    gone = rows[len(rows) // 2]
    with _unguarded(*EVENT_GUARD) as cursor:
        cursor.execute("DELETE FROM handhistory_event WHERE position = %s", [gone.position])
    _assert_guarded(*EVENT_GUARD)
    assert Event.objects.filter(stream=hand.stream).count() == len(rows) - 1

    out, problems = _verify_fails()
    assert f"PROBLEM {hand.stream}: seq {gone.seq + 1} where {gone.seq} was expected" in problems
    assert (
        f"PROBLEM {hand.stream}#{gone.seq + 1}: prev_hash does not match the previous event"
        in problems
    )
    assert "2 chain problem(s)" in out


def test_a_forged_event_that_skips_a_seq_is_named_though_its_hash_is_valid(played):
    t = played
    last = Event.objects.filter(stream=t.stream).order_by("-seq").first()
    # Inserting needs no trigger to be off: history may grow, so a forger may append.
    # This row chains correctly from the head and hashes correctly; only its seq is off.
    forged = Event(
        stream=t.stream, seq=last.seq + 2, type="HandFinished", version=1,
        payload={"hand": 0, "stacks": {}}, recorded_at=last.recorded_at,
        actor_kind=Event.ActorKind.SYSTEM, prev_hash=last.hash,
    )  # fmt: skip
    forged.hash = _rehash(forged)
    forged.save()

    out, problems = _verify_fails()
    assert problems == [f"PROBLEM {t.stream}: seq {last.seq + 2} where {last.seq + 1} was expected"]
    assert "1 chain problem(s), 0 settlement problem(s)" in out


# --- (c) a finished hand the ledger settled otherwise than its events say ---------------------


def test_a_hand_settlement_missing_from_the_ledger_is_named(played):
    t = played
    hand = next(
        h for h in _finished_hands(t) if Transfer.objects.filter(reference=f"hand:{h.pk}").exists()
    )
    legs = sorted(
        Transfer.objects.filter(reference=f"hand:{hand.pk}").values_list(
            "debit_account_id", "credit_account_id", "amount"
        )
    )
    with _unguarded(*TRANSFER_GUARD) as cursor:
        cursor.execute("DELETE FROM ledger_transfer WHERE reference = %s", [f"hand:{hand.pk}"])
    _assert_guarded(*TRANSFER_GUARD)

    out, problems = _verify_fails()
    assert problems == [
        f"PROBLEM hand {hand.pk}: ledger settlement [] != replayed {[tuple(leg) for leg in legs]}"
    ]
    assert "0 chain problem(s), 1 settlement problem(s)" in out
    # The cached balances still hold the deleted legs: the ledger's own audit sees it too.
    assert not ledger_audit().ok


def test_a_hand_marked_ended_that_its_events_do_not_end_is_named(played):
    t = played
    running = Table.objects.get(pk=t.pk).current_hand_id
    assert running is not None
    Hand.objects.filter(pk=running).update(ended_at=Hand.objects.get(pk=running).started_at)

    out, problems = _verify_fails()
    assert problems == [f"PROBLEM hand {running}: marked ended but its events do not end it"]
    assert "0 chain problem(s), 1 settlement problem(s)" in out
