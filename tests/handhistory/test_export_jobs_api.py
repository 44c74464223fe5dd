"""Export jobs over REST and in the admin: refusals that write nothing, the idempotency
key, staff exports (every card, any player, always recorded), the OpenAPI schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from handhistory.exports import FORMATS
from handhistory.exports.records import STAFF, Viewer, hand_records
from handhistory.models import ExportJob
from tests.support.exports import content, download, post
from tests.support.handhistory import played_by

# Every test writes its export files under a directory of its own (conftest.exports_root).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("exports_root")]


def _refusals(hands: dict[str, Any]) -> list[tuple[dict[str, Any], int, str]]:
    theirs = hands["other_ids"][0]
    return [
        ({"format": "doc"}, 400, "unknown_format"),
        ({"format": "phh", "since": "2025-02-01", "until": "2025-01-01"}, 400, "invalid_date_range"),
        ({"format": "phh", "since": "2025-01-01", "until": "2024-12-31T23:00:00Z"}, 400,
         "invalid_date_range"),
        ({"format": "phh", "since": "yesterday"}, 400, "invalid_date"),
        ({"format": "phh", "since": 20250101}, 400, "invalid"),
        ({"format": "phh", "hand_ids": [theirs]}, 404, "hand_not_found"),
        ({"format": "phh", "hand_ids": [hands["ids"][0], 10**9]}, 404, "hand_not_found"),
        ({"format": "phh", "tables": [10**9]}, 404, "table_not_found"),
        ({"format": "phh", "player": hands["users"][1].username}, 403, "permission_denied"),
        ({"format": "phh", "hand_ids": ["1"]}, 400, "invalid"),
        ({"format": "phh", "everything": True}, 400, "invalid"),
        ({"tables": [1]}, 400, "invalid"),
    ]  # fmt: skip


def test_bad_requests_are_refused_with_typed_errors_and_write_nothing(
    unconsumed_queue, hands, auth_client
):
    client = auth_client(hands["users"][0])
    for body, status, code in _refusals(hands):
        response = post(client, body)
        assert (response.status_code, response.json()["code"]) == (status, code), body
        assert set(response.json()) == {"code", "message", "extra"}
    assert ExportJob.objects.count() == 0


def test_a_staff_player_filter_names_an_existing_player(unconsumed_queue, auth_client, make_user):
    staff = auth_client(make_user(role="support"))
    response = post(staff, {"format": "phh", "player": "nobody-by-that-name"})
    assert response.status_code == 404
    assert response.json()["code"] == "player_not_found"
    assert ExportJob.objects.count() == 0


def test_the_same_idempotency_key_returns_the_first_job(unconsumed_queue, hands, auth_client):
    client = auth_client(hands["users"][0])
    first = post(client, {"format": "phh"}, HTTP_IDEMPOTENCY_KEY="export-1")
    again = post(client, {"format": "phh"}, HTTP_IDEMPOTENCY_KEY="export-1")
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    reused = post(client, {"format": "pokerstars"}, HTTP_IDEMPOTENCY_KEY="export-1")
    assert reused.status_code == 409
    assert reused.json()["code"] == "idempotency_key_reused"
    # Keys are per user, and no key means a new job each time.
    other = post(auth_client(hands["users"][1]), {"format": "phh"}, HTTP_IDEMPOTENCY_KEY="export-1")
    assert other.json()["id"] != first.json()["id"]
    assert post(client, {"format": "phh"}).json()["id"] != first.json()["id"]
    assert ExportJob.objects.count() == 3


def test_a_staff_export_of_a_player_holds_every_card_and_is_recorded(
    eager, hands, auth_client, make_user
):
    officer = make_user(role="support")
    staff = auth_client(officer)
    target = hands["others"][0]
    job = post(staff, {"format": "phh", "player": target.username}).json()
    assert job["status"] == "succeeded"
    assert job["filters"]["player"] == target.username
    expected = FORMATS["phh"].many(hand_records(played_by(target)), STAFF)
    assert content(download(staff, job["id"])) == expected
    assert "????" not in expected
    record = ExportJob.objects.get(pk=job["id"])
    assert (record.requester, record.full, record.source) == (officer, True, "api")


@pytest.mark.parametrize("fmt", ["phh", "pokerstars"])
def test_a_staff_single_hand_export_with_every_card_is_recorded(
    unconsumed_queue, hands, auth_client, make_user, fmt
):
    officer = make_user(role="support")
    staff = auth_client(officer)
    hand_id = hands["ids"][0]
    response = staff.get(f"/api/v1/hands/{hand_id}/", {"format": fmt, "full": 1})
    assert response.status_code == 200
    (record,) = ExportJob.objects.filter(full=True)
    assert (record.requester, record.source, record.format, record.status) == (
        officer, "hand", fmt, "succeeded"
    )  # fmt: skip
    assert record.filters["hand_ids"] == [hand_id]
    assert record.size == len(response.content)
    # It is in the staff member's list, with nothing to download.
    listed = staff.get("/api/v1/exports/").json()["results"]
    assert [(j["id"], j["source"], j["download_url"]) for j in listed] == [
        (record.pk, "hand", None)
    ]
    assert download(staff, record.pk).json()["code"] == "export_not_ready"


def test_single_hand_exports_by_players_or_refused_are_not_recorded(
    unconsumed_queue, hands, auth_client, make_user
):
    me = auth_client(hands["users"][0])
    assert me.get(f"/api/v1/hands/{hands['ids'][0]}/", {"format": "phh"}).status_code == 200
    staff = auth_client(make_user(role="support"))
    assert staff.get("/api/v1/hands/999999999/", {"format": "phh", "full": 1}).status_code == 404
    assert (
        staff.get(f"/api/v1/hands/{hands['ids'][0]}/", {"format": "x", "full": 1}).status_code
        == 400
    )
    assert ExportJob.objects.count() == 0


def test_the_admin_lists_jobs_and_downloads_their_files(
    eager, hands, auth_client, client, make_user
):
    officer = make_user(role="support")
    officer.is_superuser = True
    officer.save()
    job = post(auth_client(hands["users"][0]), {"format": "pokerstars"}).json()
    client.force_login(officer)
    page = client.get("/admin/handhistory/exportjob/")
    assert page.status_code == 200
    link = f"/admin/handhistory/exportjob/{job['id']}/download/"
    assert f'href="{link}"' in page.content.decode()
    assert 'href="/admin/handhistory/exportjob/export-player/"' in page.content.decode()
    response = client.get(link)
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="hands-{job["id"]}.txt"'
    me = hands["users"][0]
    expected = FORMATS["pokerstars"].many(hand_records(played_by(me)), Viewer(user_id=me.pk))
    assert content(response) == expected
    assert client.get(f"/admin/handhistory/exportjob/{job['id']}/change/").status_code == 200


def test_staff_export_a_players_hands_from_the_admin(eager, hands, client, make_user):
    officer = make_user(role="support")
    officer.is_superuser = True
    officer.save()
    client.force_login(officer)
    form = "/admin/handhistory/exportjob/export-player/"
    assert client.get(form).status_code == 200
    refused = client.post(form, {"player": "nobody-by-that-name", "format": "phh"})
    assert refused.status_code == 200
    assert "No player" in refused.content.decode()
    assert ExportJob.objects.count() == 0
    target = hands["others"][1]
    done = client.post(form, {"player": target.username, "format": "phh", "until": "2999-01-01"})
    assert done.status_code == 302
    (job,) = ExportJob.objects.all()
    assert (job.requester, job.source, job.full, job.status) == (
        officer,
        "admin",
        True,
        "succeeded",
    )
    assert job.filters["player"] == target.username
    assert job.hands_total == len(played_by(target))


def test_a_player_cannot_use_the_admin_export(client, make_user):
    client.force_login(make_user())
    response = client.get("/admin/handhistory/exportjob/export-player/")
    assert response.status_code == 403  # signed in, not staff
    assert ExportJob.objects.count() == 0


EXPORT_PATHS = {
    "/api/v1/exports/": {"get", "post"},
    "/api/v1/exports/{job_id}/": {"get"},
    "/api/v1/exports/{job_id}/cancel/": {"post"},
    "/api/v1/exports/{job_id}/download/": {"get"},
}


def test_the_openapi_schema_documents_every_export_endpoint_with_examples(tmp_path: Path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    paths = yaml.safe_load(out.read_text())["paths"]
    for path, methods in EXPORT_PATHS.items():
        assert methods <= set(paths[path]), path
        for method in methods:
            op = paths[path][method]
            assert op["summary"], (method, path)
            success = op["responses"].get("202") or op["responses"]["200"]
            examples = [
                example
                for body in success["content"].values()
                for example in body.get("examples", {}).values()
            ]
            assert examples, (method, path)
            for status, response in op["responses"].items():
                if status.startswith("4"):
                    assert response["content"]["application/json"]["examples"], (path, status)
    create = paths["/api/v1/exports/"]["post"]
    assert "429" in create["responses"]
    assert create["requestBody"]["content"]["application/json"]["examples"]
    body = create["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    components = yaml.safe_load(out.read_text())["components"]["schemas"]
    (enum,) = components[body]["properties"]["format"]["allOf"]
    assert components[enum["$ref"].rsplit("/", 1)[-1]]["enum"] == sorted(FORMATS)
