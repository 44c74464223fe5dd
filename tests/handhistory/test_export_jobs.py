"""Export jobs: the lifecycle over REST (queue, run, progress, download), privacy, cancel,
failure, expiry and the per-user quota (with concurrent requests on PostgreSQL)."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from core.errors import InvalidRequest
from handhistory.export_jobs import export_job_run
from handhistory.exports import FORMATS, Format
from handhistory.exports.filters import ExportFilters
from handhistory.exports.records import STAFF, Viewer, hand_records
from handhistory.models import ExportJob, Hand, PlayerHandResult
from handhistory.services import export_job_cancel, export_job_create
from handhistory.tasks import expire_exports
from poker.commands.seating import table_sit
from poker.engine.cards import format_card
from poker.engine.events import HoleCardsDealt
from poker.engine.privacy import shown_players
from tests.support.exports import content, download, post
from tests.support.handhistory import played_by
from tests.support.poker import actor_for, key

# Every test writes its export files under a directory of its own (conftest.exports_root).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("exports_root")]


def stored_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_job_runs_to_a_file_of_exactly_the_requesters_hands_in_that_format(
    eager, hands, auth_client, fmt
):
    me = hands["users"][0]
    client = auth_client(me)
    created = post(client, {"format": fmt})
    assert created.status_code == 202, created.json()
    job = client.get(f"/api/v1/exports/{created.json()['id']}/").json()
    assert job["status"] == "succeeded", job
    assert job["hands_done"] == job["hands_total"] == len(played_by(me))
    assert job["progress"] == 1.0
    assert job["download_url"] == f"/api/v1/exports/{job['id']}/download/"
    response = download(client, job["id"])
    assert response.status_code == 200
    extension = FORMATS[fmt].extension
    assert response["Content-Disposition"] == (
        f'attachment; filename="hands-{job["id"]}.{extension}"'
    )
    expected = FORMATS[fmt].many(hand_records(played_by(me)), Viewer(user_id=me.pk))
    assert content(response) == expected
    assert job["size"] == len(expected.encode())
    # The list holds it too.
    assert [j["id"] for j in client.get("/api/v1/exports/").json()["results"]] == [job["id"]]


def _hidden_deals(hand_id: int, viewer_id: int) -> list[str]:
    """PHH deal lines of the other players of the hand who never showed their cards."""
    (record,) = hand_records([hand_id])
    shown = shown_players(record.events)
    return [
        f"d dh p{e.player + 1} {''.join(format_card(c) for c in e.cards)}"
        for e in record.events
        if isinstance(e, HoleCardsDealt)
        and e.player not in shown
        and record.player_ids[e.player] != viewer_id
    ]


def test_a_players_export_never_holds_another_players_hidden_cards(eager, hands, auth_client):
    me = hands["users"][1]
    job = post(auth_client(me), {"format": "phh"}).json()
    mine = content(download(auth_client(me), job["id"]))
    hidden = [line for h in played_by(me) for line in _hidden_deals(h, me.pk)]
    assert hidden  # somebody folded without showing: the check below has something to find
    assert not [line for line in hidden if line in mine]
    # The same hands exported by staff hold them: the check can fail.
    everything = FORMATS["phh"].many(hand_records(played_by(me)), STAFF)
    assert all(line in everything for line in hidden)


def test_a_players_export_holds_only_hands_they_played(eager, hands, auth_client):
    other = hands["others"][0]
    job = post(auth_client(other), {"format": "pokerstars"}).json()
    assert job["hands_total"] == len(played_by(other)) > 0
    text = content(download(auth_client(other), job["id"]))
    for hand_id in hands["ids"]:
        assert f"Hand #{hand_id}:" not in text
    for hand_id in played_by(other):
        assert f"Hand #{hand_id}:" in text


def test_dates_bound_the_hands_by_their_end_and_a_date_alone_is_the_whole_day(
    eager, hands, auth_client
):
    client = auth_client(hands["users"][0])
    today = timezone.now().date()
    tomorrow = (today + timedelta(days=1)).isoformat()
    assert post(client, {"format": "phh", "since": tomorrow}).json()["hands_total"] == 0
    whole_day = post(client, {"format": "phh", "until": today.isoformat()}).json()
    assert whole_day["hands_total"] == len(played_by(hands["users"][0]))
    assert whole_day["filters"]["until"] == f"{tomorrow}T00:00:00+00:00"


def test_filters_by_table_and_hand_ids_narrow_the_export(eager, hands, auth_client, make_user):
    staff = auth_client(make_user(role="support"))
    by_table = post(staff, {"format": "phh", "tables": [hands["table"].pk]}).json()
    assert by_table["hands_total"] == len(hands["ids"])
    some = hands["ids"][1:3]
    by_id = post(staff, {"format": "phh", "hand_ids": some}).json()
    assert by_id["hands_total"] == 2
    assert by_id["filters"]["hand_ids"] == some


def test_another_users_job_is_not_found(eager, hands, auth_client):
    job = post(auth_client(hands["users"][0]), {"format": "phh"}).json()
    stranger = auth_client(hands["users"][1])
    for response in (
        stranger.get(f"/api/v1/exports/{job['id']}/"),
        download(stranger, job["id"]),
        stranger.post(f"/api/v1/exports/{job['id']}/cancel/"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "export_not_found"
    assert stranger.get("/api/v1/exports/").json()["results"] == []
    assert ExportJob.objects.get(pk=job["id"]).status == "succeeded"


def test_a_cancelled_queued_job_never_runs_and_a_finished_one_cannot_be_cancelled(
    unconsumed_queue, hands, auth_client, exports_root
):
    client = auth_client(hands["users"][0])
    job = post(client, {"format": "phh"}).json()
    assert job["status"] == "queued"
    assert download(client, job["id"]).json()["code"] == "export_not_ready"
    cancelled = client.post(f"/api/v1/exports/{job['id']}/cancel/")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    export_job_run(job_id=job["id"])  # the message arrives after all: nothing happens
    assert ExportJob.objects.get(pk=job["id"]).status == "cancelled"
    assert stored_files(exports_root) == []
    again = client.post(f"/api/v1/exports/{job['id']}/cancel/")
    assert again.status_code == 409
    assert again.json()["code"] == "export_finished"
    assert download(client, job["id"]).json()["code"] == "export_not_ready"


def test_a_job_cancelled_while_running_stops_at_the_next_chunk_and_stores_nothing(
    unconsumed_queue, hands, auth_client, exports_root, monkeypatch, make_user
):
    me = make_user(role="support")  # every hand: more than one chunk
    phh = FORMATS["phh"]

    def hand_then_cancel(record: Any, viewer: Any) -> str:
        running = ExportJob.objects.filter(status="running").first()
        if running is not None:  # the requester cancels while the first hand is written
            export_job_cancel(job_id=running.pk, requester_id=me.pk)
        return phh.hand(record, viewer)

    monkeypatch.setitem(
        FORMATS, "phh-cancelled", Format(name="phh", extension="phhs", content_type="text/plain",
                                          hand=hand_then_cancel)
    )  # fmt: skip
    job = post(auth_client(me), {"format": "phh-cancelled"}).json()
    export_job_run(job_id=job["id"])
    job = ExportJob.objects.get(pk=job["id"])
    assert job.status == "cancelled"
    assert job.hands_total == len(hands["ids"] + hands["other_ids"])
    assert job.hands_total > django_settings.EXPORT_CHUNK_SIZE
    assert job.hands_done < job.hands_total
    assert job.file_name == ""
    assert stored_files(exports_root) == []


def test_a_job_whose_file_cannot_be_stored_fails_saying_why_and_logs_its_id(
    eager, hands, auth_client, settings, tmp_path, caplog
):
    # A real failure: the storage's directory would have to be inside a regular file.
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    settings.STORAGES = {
        **settings.STORAGES,
        "exports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(blocker / "exports")},
        },
    }
    client = auth_client(hands["users"][0])
    with caplog.at_level(logging.ERROR, logger="handhistory.services"):
        job = post(client, {"format": "phh"}).json()
    assert job["status"] == "failed"
    assert job["error"] == (
        "The export file could not be written or stored (storage unavailable or full); "
        "try again later."
    )
    assert job["download_url"] is None
    assert download(client, job["id"]).json()["code"] == "export_not_ready"
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert f"export job {job['id']} failed" in record.getMessage()
    assert record.export_job == job["id"]


def test_the_expiry_sweep_deletes_expired_files_and_marks_their_jobs_expired(
    eager, hands, auth_client, exports_root
):
    client = auth_client(hands["users"][0])
    old = post(client, {"format": "phh"}).json()
    fresh = post(client, {"format": "pokerstars"}).json()
    ExportJob.objects.filter(pk=old["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert len(stored_files(exports_root)) == 2
    assert expire_exports() == 1
    assert [p.suffix for p in stored_files(exports_root)] == [".txt"]
    gone = client.get(f"/api/v1/exports/{old['id']}/").json()
    assert gone["status"] == "expired"
    assert gone["download_url"] is None
    response = download(client, old["id"])
    assert response.status_code == 410
    assert response.json()["code"] == "export_expired"
    assert download(client, fresh["id"]).status_code == 200
    assert expire_exports() == 0


def test_a_user_with_the_maximum_of_active_jobs_gets_429_and_nothing_is_written(
    unconsumed_queue, hands, auth_client, settings
):
    settings.EXPORT_MAX_ACTIVE_JOBS = 2
    client = auth_client(hands["users"][0])
    first, _ = (post(client, {"format": "phh"}).json() for _ in range(2))
    before = ExportJob.objects.count()
    refused = post(client, {"format": "phh"})
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_exports"
    assert refused.json()["extra"] == {"active": 2, "limit": 2}
    assert ExportJob.objects.count() == before
    # Other users have their own quota; a cancelled job frees a place.
    assert post(auth_client(hands["users"][1]), {"format": "phh"}).status_code == 202
    client.post(f"/api/v1/exports/{first['id']}/cancel/")
    assert post(client, {"format": "phh"}).status_code == 202


def test_concurrent_requests_cannot_both_take_the_last_place(
    unconsumed_queue, make_user, auth_client, settings
):
    settings.EXPORT_MAX_ACTIVE_JOBS = 1
    user = make_user()
    clients = [auth_client(user) for _ in range(4)]
    barrier = threading.Barrier(len(clients))
    statuses: list[int] = []

    def request(client: Any) -> None:
        try:
            barrier.wait()
            statuses.append(post(client, {"format": "phh"}).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=request, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [202, 429, 429, 429]
    assert ExportJob.objects.filter(requester=user).count() == 1


def test_only_finished_hands_are_exported(unconsumed_queue, hands, auth_client, table, player):
    t = table()
    sitters = [player(), player()]
    for user in sitters:
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=5_000, key=key(), actor=actor_for(user))
    (live,) = Hand.objects.filter(table=t, ended_at__isnull=True).values_list("pk", flat=True)
    client = auth_client(sitters[0])
    refused = post(client, {"format": "phh", "hand_ids": [live]})
    assert refused.status_code == 409
    assert refused.json()["code"] == "hand_in_progress"
    job = post(client, {"format": "phh"}).json()
    export_job_run(job_id=job["id"])
    job = ExportJob.objects.get(pk=job["id"])
    assert (job.status, job.hands_total) == ("succeeded", 0)


# The result filter of "My hands" (won or lost), applied by the job.


def results_of(user: Any, **net: int) -> list[int]:
    rows = PlayerHandResult.objects.filter(player=user, **net).order_by("hand_id")
    return list(rows.values_list("hand_id", flat=True))


@pytest.mark.parametrize(("result", "net"), [("won", {"net__gt": 0}), ("lost", {"net__lt": 0})])
def test_a_players_export_of_hands_won_or_lost_holds_exactly_those(
    eager, hands, auth_client, result, net
):
    me = next(u for u in hands["users"] if results_of(u, net__gt=0) and results_of(u, net__lt=0))
    client = auth_client(me)
    expected_ids = results_of(me, **net)
    assert expected_ids != results_of(me)  # the filter narrows
    job = post(client, {"format": "pokerstars", "result": result}).json()
    assert job["status"] == "succeeded", job
    assert job["filters"]["result"] == result
    assert job["hands_total"] == len(expected_ids)
    expected = FORMATS["pokerstars"].many(hand_records(expected_ids), Viewer(user_id=me.pk))
    assert content(download(client, job["id"])) == expected


def test_a_staff_export_of_a_players_won_hands_uses_that_players_results(
    eager, hands, auth_client, make_user
):
    target = next(u for u in hands["users"] if results_of(u, net__gt=0))
    staff = auth_client(make_user(role="support"))
    job = post(staff, {"format": "phh", "player": target.username, "result": "won"}).json()
    assert job["status"] == "succeeded", job
    assert job["hands_total"] == len(results_of(target, net__gt=0))


def test_an_unknown_result_is_refused_with_a_typed_error_and_writes_nothing(
    eager, hands, auth_client
):
    me = hands["users"][0]
    response = post(auth_client(me), {"format": "phh", "result": "draw"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    with pytest.raises(InvalidRequest) as refused:
        export_job_create(requester=me, fmt="phh", filters=ExportFilters(result="draw"))
    assert refused.value.code == "invalid_result"
    assert not ExportJob.objects.exists()
