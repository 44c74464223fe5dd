import copy
import threading

import pytest
from django.db import DatabaseError, connection, transaction

from handhistory.models import Event
from handhistory.store import (
    GENESIS,
    Actor,
    NewEvent,
    StreamConflict,
    events_append,
    stream_events,
    stream_head,
    verify_chain,
)

pytestmark = pytest.mark.django_db


def _append(stream, *types, expected_seq=None, actor=None):
    with transaction.atomic():
        return events_append(
            stream=stream,
            events=[NewEvent(type=t, version=1, payload={"n": i}) for i, t in enumerate(types)],
            expected_seq=expected_seq,
            **({"actor": actor} if actor else {}),
        )


def test_events_get_consecutive_seqs_and_a_hash_chain():
    _append("hand-1", "HandStarted", "BlindPosted")
    _append("hand-1", "PlayerFolded")
    rows = stream_events("hand-1")
    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[0].prev_hash == GENESIS
    assert rows[1].prev_hash == rows[0].hash and rows[2].prev_hash == rows[1].hash
    assert verify_chain(rows) == []
    assert stream_head("hand-1") == (3, rows[2].hash)


def test_streams_are_independent():
    _append("hand-1", "A")
    _append("table-1", "B")
    assert stream_head("hand-1")[0] == 1 and stream_head("table-1")[0] == 1


def test_event_records_who_caused_it():
    actor = Actor(kind="player", user_id=None, client_ip="203.0.113.9", device_id="dev-42")
    (row,) = _append("hand-2", "PlayerChecked", actor=actor)
    row.refresh_from_db()
    assert (row.actor_kind, row.client_ip, row.device_id) == ("player", "203.0.113.9", "dev-42")


def test_verify_chain_detects_an_altered_payload_and_a_missing_event():
    _append("hand-3", "A", "B", "C")
    rows = stream_events("hand-3")
    tampered = copy.deepcopy(rows)
    tampered[1].payload = {"n": 999}
    assert any("content does not match" in p for p in verify_chain(tampered))
    assert any("seq 3 where 2" in p for p in verify_chain([rows[0], rows[2]]))


def test_stale_expected_seq_is_a_stream_conflict_and_writes_nothing():
    _append("hand-4", "A")
    with pytest.raises(StreamConflict) as err:
        _append("hand-4", "B", expected_seq=0)
    assert err.value.code == "stream_conflict"
    assert Event.objects.filter(stream="hand-4").count() == 1


@pytest.mark.django_db(transaction=True)
def test_append_outside_a_transaction_is_refused():
    with pytest.raises(RuntimeError):
        events_append(stream="x", events=[NewEvent(type="A", version=1)])


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE handhistory_event SET payload = '{}'",
        "DELETE FROM handhistory_event",
    ],
)
def test_database_refuses_to_rewrite_history(sql):
    _append("hand-5", "A")
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert Event.objects.filter(stream="hand-5").count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_to_one_stream_never_share_a_seq():
    barrier = threading.Barrier(2)
    outcomes = []

    def worker(tag):
        try:
            with transaction.atomic():
                barrier.wait()
                events_append(stream="race", events=[NewEvent(type=tag, version=1)])
            outcomes.append("ok")
        except StreamConflict:
            outcomes.append("conflict")
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = stream_events("race")
    assert sorted(outcomes) in (["conflict", "ok"], ["ok", "ok"])
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert len(rows) == outcomes.count("ok")
    assert verify_chain(rows) == []
