"""Audit runs against a played room: every check passes on it, and each fails -- recorded
``failed`` with readable problems, logged at ERROR and mailed to staff -- once the room's
stored data is forged the way someone with direct database access would."""

import contextlib
import io
import json
import logging
import uuid

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.utils import timezone

from audit.models import AuditRun
from audit.selectors import event_store_watermark
from audit.services import audit_run
from audit.tasks import audit_run_task
from handhistory.models import Event, Hand
from handhistory.store import event_hash
from ledger.models import Account, AccountKind, Transfer
from ledger.services import ledger_account_open, ledger_transfer
from poker.commands.chat import table_chat
from poker.commands.seating import table_sit, table_sit_out
from poker.commands.staff import staff_actor, table_pause
from poker.models import Seat
from tests.audit import conftest as audit_fixtures
from tests.support.poker import actor_for, key, play_random_hands

pytestmark = pytest.mark.django_db(transaction=True)

player, table = audit_fixtures.player, audit_fixtures.table

CHECKS = ["ledger", "event_store", "event_store_full", "replay_settlement", "table_stakes",
          "tournament_accounts"]  # fmt: skip


class CheckCall:
    """Checks when it may, else calls: nobody busts, every hand ends."""

    def choice(self, options):
        return "check" if "check" in options else "call"


@pytest.fixture
def staff(make_user):
    user = make_user(staff=True)
    user.email = "auditor@example.org"
    user.save()
    return user


@contextlib.contextmanager
def _unguarded(table_name, trigger):
    """A transaction in which ``trigger`` is off; it is back on before the commit."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {table_name} DISABLE TRIGGER {trigger}")
        yield cursor
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"ALTER TABLE {table_name} ENABLE TRIGGER {trigger}")


def _rehash(row, **changes):
    fields = {
        f: getattr(row, f)
        for f in ("prev_hash", "stream", "seq", "type", "version", "payload", "recorded_at",
                  "actor_kind", "actor_id", "client_ip", "device_id")
    }  # fmt: skip
    fields.update(changes)
    return event_hash(**fields)


def _failed(run, staff, caplog_text):
    assert run.status == AuditRun.Status.FAILED
    assert run.failure_count == len(run.failures) > 0
    assert f"audit {run.check_name} FAILED" in caplog_text
    sent = [m for m in mail.outbox if run.check_name in m.body or "FAILED" in m.subject]
    assert sent and staff.email in sent[-1].to
    assert run.failures[0] in sent[-1].body


def test_every_check_passes_on_a_played_room_and_counts_what_it_read(room, staff):
    out = io.StringIO()
    call_command("audit_run", "--all", stdout=out)
    runs = {r.check_name: r for r in AuditRun.objects.all()}
    assert sorted(runs) == sorted(CHECKS)
    for run in runs.values():
        assert run.status == AuditRun.Status.PASSED, (run.check_name, run.failures, run.error)
        assert run.failures == [] and run.finished_at >= run.started_at
        assert run.duration_ms is not None
    assert runs["ledger"].checked == Transfer.objects.count()
    assert runs["event_store"].checked == Event.objects.count()  # the first pass: everything
    assert runs["event_store_full"].checked == Event.objects.count()
    assert runs["replay_settlement"].checked == Hand.objects.filter(ended_at__isnull=False).count()
    assert runs["table_stakes"].checked == 2  # the played table at rest and the empty one
    assert "table_stakes: PASSED (2 checked, 0 problem(s)" in out.getvalue()
    assert mail.outbox == []  # nothing to tell anyone


def test_the_task_runs_one_check_and_says_how_it_went(room):
    result = audit_run_task("table_stakes")
    run = AuditRun.objects.get()
    assert result == {"id": run.pk, "check": "table_stakes", "status": "passed", "checked": 2,
                      "failures": 0}  # fmt: skip


def test_a_transfer_forged_past_the_posting_core_fails_the_ledger_audit(room, staff, caplog):
    t, _ = room
    seat = Seat.objects.filter(table=t).select_related("stake_account").first()
    house = Account.objects.filter(kind=AccountKind.HOUSE_RAKE, currency="CHIPS").get()
    # A row written straight into the table, past the posting core: no balance moved,
    # so the cached ones now disagree with the transfers.
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_transfer (id, debit_account_id, credit_account_id, amount, "
            "currency, code, status, reference, metadata, created_at) "
            "VALUES (%s, %s, %s, 777, 'CHIPS', 'forged', 'posted', '', '{}', now())",
            [uuid.uuid4(), house.pk, seat.stake_account_id],
        )
    with caplog.at_level(logging.ERROR, logger="audit"):
        run = audit_run(check="ledger")
    _failed(run, staff, caplog.text)
    assert any(
        f"account {seat.stake_account_id}: cached balance" in p and "transfers say" in p
        for p in run.failures
    ), run.failures
    assert "FAILED" in mail.outbox[-1].subject and "Ledger audit" in mail.outbox[-1].subject


def test_chips_moved_onto_a_seat_without_the_table_fail_the_table_stakes_check(room, staff, caplog):
    t, _ = room
    seat = Seat.objects.filter(table=t).order_by("number").select_related("stake_account").first()
    before = seat.stake_account.balance
    issuer = ledger_account_open(kind=AccountKind.BONUS, owner_ref="forger", currency="CHIPS",
                                 must_not_overdraw=False)  # fmt: skip
    # A well-formed posting: the ledger's own audit cannot tell it is wrong.
    ledger_transfer(transfer_id=uuid.uuid4(), debit_account_id=issuer.pk,
                    credit_account_id=seat.stake_account_id, amount=500, currency="CHIPS",
                    code="forged")  # fmt: skip
    assert audit_run(check="ledger").status == AuditRun.Status.PASSED
    with caplog.at_level(logging.ERROR, logger="audit"):
        run = audit_run(check="table_stakes")
    _failed(run, staff, caplog.text)
    assert run.failures == [
        f"table {t.pk} ({t.name}): seat {seat.number} (player {seat.player_id}) holds "
        f"{before + 500} in the ledger but {before} at the table"
    ]


def test_chips_left_on_the_stake_of_a_player_gone_fail_the_table_stakes_check(room, staff):
    t, _ = room
    gone = ledger_account_open(kind=AccountKind.SEAT_STAKE, owner_ref=f"table:{t.pk}:user:999999",
                               currency="CHIPS")  # fmt: skip
    issuer = ledger_account_open(kind=AccountKind.BONUS, owner_ref="forger", currency="CHIPS",
                                 must_not_overdraw=False)  # fmt: skip
    ledger_transfer(transfer_id=uuid.uuid4(), debit_account_id=issuer.pk,
                    credit_account_id=gone.pk, amount=40, currency="CHIPS", code="forged")  # fmt: skip
    run = audit_run(check="table_stakes")
    assert run.status == AuditRun.Status.FAILED
    assert len(run.failures) == 1 and "chips left behind by players who are gone" in run.failures[0]


def test_a_settlement_forged_through_the_ledger_fails_replay_versus_settlement(room, staff, caplog):
    t, _ = room
    hand = Hand.objects.filter(table=t, ended_at__isnull=False).order_by("pk").first()
    a, b = (
        Account.objects.get(owner_ref=f"table:{t.pk}:user:{pid}") for pid in hand.player_ids[:2]
    )
    ledger_transfer(transfer_id=uuid.uuid4(), debit_account_id=a.pk, credit_account_id=b.pk,
                    amount=1, currency="CHIPS", code="hand_settlement",
                    reference=f"hand:{hand.pk}")  # fmt: skip
    with caplog.at_level(logging.ERROR, logger="audit"):
        run = audit_run(check="replay_settlement")
    _failed(run, staff, caplog.text)
    assert len(run.failures) == 1 and run.failures[0].startswith(
        f"hand {hand.pk}: ledger settlement"
    )


def test_a_tampered_event_fails_the_full_pass(room, staff, caplog):
    t, _ = room
    row = Event.objects.filter(stream=t.stream, type="PlayerSat").order_by("seq").first()
    with _unguarded("handhistory_event", "handhistory_event_no_update_delete") as cursor:
        cursor.execute(
            "UPDATE handhistory_event SET payload = %s::jsonb WHERE position = %s",
            [json.dumps({**row.payload, "buy_in": 50_000}), row.position],
        )
    with caplog.at_level(logging.ERROR, logger="audit"):
        run = audit_run(check="event_store_full")
    _failed(run, staff, caplog.text)
    assert run.failures == [f"{t.stream}#{row.seq}: content does not match its hash"]


def _passed_incremental_at(position):
    """A passed incremental run whose watermark is ``position`` (as if every event up to it
    had been verified by earlier runs)."""
    return AuditRun.objects.create(check_name="event_store", status="passed",
                                   started_at=timezone.now(), watermark=position)  # fmt: skip


def test_the_incremental_pass_reads_only_new_events_from_the_last_passed_watermark(room, staff):
    t, users = room
    head = Event.objects.filter(stream=t.stream).order_by("-seq").first()
    _passed_incremental_at(head.position)
    assert event_store_watermark() == head.position
    # An old event tampered with: the incremental pass does not read it (the full one does).
    old = Event.objects.filter(stream=t.stream).order_by("seq").first()
    with _unguarded("handhistory_event", "handhistory_event_no_update_delete") as cursor:
        cursor.execute("UPDATE handhistory_event SET device_id = 'x' WHERE position = %s",
                       [old.position])  # fmt: skip
    table_chat(table_id=t.pk, player_id=users[0].pk, text="gl", key=key(),
               actor=actor_for(users[0]))  # fmt: skip
    newer = Event.objects.filter(position__gt=head.position).count()
    assert newer == 1
    run = audit_run(check="event_store")
    assert run.status == AuditRun.Status.PASSED, run.failures
    assert run.checked == newer
    assert audit_run(check="event_store_full").status == AuditRun.Status.FAILED
    # A failed run does not move the watermark: the next incremental starts where it did.
    assert event_store_watermark() == head.position


def test_the_incremental_pass_finds_a_link_broken_at_the_watermark(room, staff, caplog):
    t, _ = room
    head = Event.objects.filter(stream=t.stream).order_by("-seq").first()
    _passed_incremental_at(max(Event.objects.values_list("position", flat=True)))
    # Appended after the watermark, hashing correctly, but not chained to its predecessor
    # (which lies below the watermark and is not read again).
    forged = Event(stream=t.stream, seq=head.seq + 1, type="ChatPosted", version=2,
                   payload={"seat": None, "user_id": None, "username": None, "text": "hi"},
                   recorded_at=head.recorded_at, actor_kind=Event.ActorKind.SYSTEM,
                   prev_hash="f" * 64)  # fmt: skip
    forged.hash = _rehash(forged)
    forged.save()
    with caplog.at_level(logging.ERROR, logger="audit"):
        run = audit_run(check="event_store")
    assert run.checked == 1
    _failed(run, staff, caplog.text)
    assert run.failures == [
        f"{t.stream}#{head.seq + 1}: prev_hash does not match the previous event"
    ]


def test_a_check_that_crashes_is_recorded_as_an_error_and_mailed(room, staff, monkeypatch, caplog):
    def broken():
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("audit.checks.check_table_stakes", broken)
    with caplog.at_level(logging.ERROR, logger="audit"):
        run = audit_run(check="table_stakes")
    assert run.status == AuditRun.Status.ERROR and "RuntimeError: disk on fire" in run.error
    assert "audit table_stakes crashed" in caplog.text
    assert "crashed" in mail.outbox[-1].subject and "disk on fire" in mail.outbox[-1].body
    with pytest.raises(CommandError, match="1 audit check"):
        call_command("audit_run", "--check", "table_stakes", stdout=io.StringIO(),
                     stderr=io.StringIO())  # fmt: skip


def test_beat_schedules_each_check_once_and_the_old_ledger_task_is_gone(settings):
    audit = {e["args"][0]: e["schedule"] for e in settings.CELERY_BEAT_SCHEDULE.values()
             if e["task"] == "audit.run"}  # fmt: skip
    assert audit == {"ledger": 3600.0, "event_store": 300.0, "event_store_full": 86400.0,
                     "replay_settlement": 3600.0, "table_stakes": 300.0,
                     "tournament_accounts": 3600.0}  # fmt: skip
    assert not any(e["task"] == "ledger.audit" for e in settings.CELERY_BEAT_SCHEDULE.values())


def test_the_embedded_beat_calls_an_audit_entry_with_its_check(room, settings):
    from core.management.commands.serve import _beat_call

    entry = settings.CELERY_BEAT_SCHEDULE["audit-table-stakes"]
    _beat_call(entry)
    run = AuditRun.objects.get()
    assert (run.check_name, run.status, run.checked) == ("table_stakes", "passed", 2)


def test_the_admin_lists_runs_read_only_in_colour_and_shows_a_runs_problems(client, make_user):
    admin_user = make_user(staff=True)
    admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    run = AuditRun.objects.create(
        check_name="table_stakes", status="failed", started_at=timezone.now(), duration_ms=12,
        checked=3, failures=["table 1 (T): seat 2 <b>x</b>"], failure_count=301,
    )  # fmt: skip
    listing = client.get("/admin/audit/auditrun/").content.decode()
    assert '<span class="audit-status audit-failed">failed</span>' in listing
    assert "/static/audit/admin.css" in listing and "301" in listing
    assert "Add audit run" not in listing
    detail = client.get(f"/admin/audit/auditrun/{run.pk}/change/").content.decode()
    assert "<li>table 1 (T): seat 2 &lt;b&gt;x&lt;/b&gt;</li>" in detail  # escaped
    assert "<li>... and 300 more</li>" in detail
    assert client.post(f"/admin/audit/auditrun/{run.pk}/delete/").status_code == 403


def test_table_stakes_follow_a_player_sitting_out_back_to_their_last_hand(table, player):
    """A player who sat out for hands is anchored at the last hand they were dealt: the
    check walks the table's history back past the hands played without them."""
    t = table()
    users = [player() for _ in range(3)]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    play_random_hands(t, users, 3, CheckCall())
    away = next(u for u in users if u.pk in Hand.objects.filter(table=t).last().player_ids)
    table_sit_out(table_id=t.pk, player_id=away.pk, key=key(), actor=actor_for(away))
    play_random_hands(t, users, 3, CheckCall())
    last_dealt = max(h.pk for h in Hand.objects.filter(table=t) if away.pk in h.player_ids)
    assert Hand.objects.filter(table=t, pk__gt=last_dealt, ended_at__isnull=False).count() >= 2
    table_pause(table_id=t.pk, actor=staff_actor(None))
    play_random_hands(t, users, 1, CheckCall())
    run = audit_run(check="table_stakes")
    assert run.status == AuditRun.Status.PASSED, run.failures
    # ...and it does compare that player's stake: a chip more on it is named.
    issuer = ledger_account_open(kind=AccountKind.BONUS, owner_ref="forger", currency="CHIPS",
                                 must_not_overdraw=False)  # fmt: skip
    stake = Seat.objects.get(table=t, player=away).stake_account_id
    ledger_transfer(transfer_id=uuid.uuid4(), debit_account_id=issuer.pk,
                    credit_account_id=stake, amount=1, currency="CHIPS", code="forged")  # fmt: skip
    run = audit_run(check="table_stakes")
    assert len(run.failures) == 1 and f"(player {away.pk}) holds" in run.failures[0]
