"""The fraud REST endpoints: fraud reviewers only, typed errors, idempotent actions."""

from __future__ import annotations

import itertools

import pytest
from rest_framework.test import APIClient

from fraud.models import Case, CaseLogEntry
from tests.support.openapi import schema_errors
from wallet.models import Restriction

pytestmark = pytest.mark.django_db
_keys = itertools.count()

ACTIONS = {
    "assign": {"assignee_id": None},
    "review": {},
    "note": {"text": "looked at it"},
    "dismiss": {"reason": "honest"},
    "confirm": {"reason": "dumping", "freeze": True},
}


def post(client, url, body, key=None):
    """POST with a fresh Idempotency-Key (or ``key``; "" sends none)."""
    headers = (
        {"HTTP_IDEMPOTENCY_KEY": f"k{next(_keys)}" if key is None else key} if key != "" else {}
    )
    return client.post(url, body, format="json", **headers)


def state(case):
    case.refresh_from_db()
    return (case.status, case.assignee_id, case.log.count(), Restriction.objects.count())


def test_nobody_but_a_fraud_reviewer_learns_that_cases_exist(
    open_case, reviewer, auth_client, make_user
):
    case = open_case()
    before = state(case)
    urls = ["/api/v1/fraud/cases/", f"/api/v1/fraud/cases/{case.pk}/"]
    posts = {f"/api/v1/fraud/cases/{case.pk}/{name}/": body for name, body in ACTIONS.items()}
    player = auth_client(case.players.first())  # even the suspect
    for client in (player, auth_client(make_user(staff=True))):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 404 and response.json()["code"] == "not_found"
        for url, body in posts.items():
            response = post(client, url, body)
            assert response.status_code == 404 and response.json()["code"] == "not_found"
    for url in urls:
        assert APIClient().get(url).status_code == 401
    assert state(case) == before


def test_reviewers_list_cases_by_score_with_players_and_evidence(open_case, reviewer, auth_client):
    low, high = open_case(score=2.0), open_case(score=9.0, hand_ids=(31, 30, 31))
    client = auth_client(reviewer(act=False))
    body = client.get("/api/v1/fraud/cases/").json()
    assert [c["id"] for c in body["results"]] == [high.pk, low.pk]
    first = body["results"][0]
    assert first["kinds"] == ["chip_dumping"] and first["status"] == "open"
    assert [p["username"] for p in first["players"]] == sorted(
        high.players.values_list("username", flat=True)
    )
    assert first["evidence_hand_ids"] == [31, 30]
    detail = client.get(f"/api/v1/fraud/cases/{high.pk}/").json()
    assert detail["log"][0]["action"] == "opened" and detail["evidence"][0]["hand_id"] == 31
    assert client.get("/api/v1/fraud/cases/?status=dismissed").json()["count"] == 0
    assert client.get("/api/v1/fraud/cases/?status=bogus").json()["code"] == "unknown_status"
    assert client.get(f"/api/v1/fraud/cases/{high.pk + 99}/").json()["code"] == "case_not_found"


def test_an_unassigned_case_is_as_its_schema_says_in_the_list_and_in_detail(
    open_case, reviewer, auth_client
):
    case = open_case()
    client = auth_client(reviewer(act=False))
    listed = client.get("/api/v1/fraud/cases/").json()["results"][0]
    detail = client.get(f"/api/v1/fraud/cases/{case.pk}/").json()
    assert listed["assignee"] is None
    assert schema_errors(listed, "Case") == []
    assert schema_errors(detail, "CaseDetail") == []


def test_a_viewing_reviewer_cannot_act(open_case, reviewer, auth_client):
    case = open_case()
    before = state(case)
    client = auth_client(reviewer(act=False))
    response = post(client, f"/api/v1/fraud/cases/{case.pk}/confirm/", ACTIONS["confirm"])
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert state(case) == before


def test_bad_bodies_are_typed_400s_that_change_nothing(open_case, reviewer, auth_client):
    case = open_case()
    before = state(case)
    client = auth_client(reviewer())
    url = f"/api/v1/fraud/cases/{case.pk}/"
    for action, body in [("note", {"text": 5}), ("confirm", {"reason": "x", "freeze": "yes"}),
                         ("dismiss", {"reason": "x", "extra": 1}), ("dismiss", {}),
                         ("assign", {"assignee_id": "3"}), ("note", ["text"])]:  # fmt: skip
        response = post(client, url + f"{action}/", body)
        assert response.status_code == 400, (action, body, response.json())
        assert response.json()["code"] in {"invalid", "malformed_request"}
    assert post(client, url + "note/", {"text": "x"}, key="").json()["code"] == (
        "idempotency_key_required"
    )
    assert state(case) == before


def test_confirming_twice_with_one_key_freezes_once_and_replays(open_case, reviewer, auth_client):
    case = open_case()
    client = auth_client(reviewer())
    url = f"/api/v1/fraud/cases/{case.pk}/confirm/"
    first = post(client, url, ACTIONS["confirm"], key="c-1")
    again = post(client, url, ACTIONS["confirm"], key="c-1")
    assert first.status_code == again.status_code == 200
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    other = post(client, url, {"reason": "different", "freeze": False}, key="c-1")
    assert other.status_code == 409 and other.json()["code"] == "idempotency_key_reused"
    assert first.json()["status"] == "confirmed"
    assert Restriction.objects.filter(source=f"fraud_case:{case.pk}").count() == 2
    assert list(CaseLogEntry.objects.filter(case=case).values_list("action", flat=True)) == [
        "opened", "confirmed", "frozen",
    ]  # fmt: skip


def test_the_review_flow_over_rest(open_case, reviewer, auth_client):
    staff = reviewer()
    case = open_case()
    client = auth_client(staff)
    url = f"/api/v1/fraud/cases/{case.pk}/"
    assert post(client, url + "review/", {}).json()["assignee"] == staff.username
    assert post(client, url + "assign/", {"assignee_id": None}).json()["assignee"] is None
    assert post(client, url + "note/", {"text": "same device as 2025"}).status_code == 200
    done = post(client, url + "dismiss/", {"reason": "household, honest play"}).json()
    assert done["status"] == "dismissed" and done["dismissed_score"] == case.score
    assert [e["action"] for e in done["log"]] == [
        "opened", "reviewing", "assigned", "noted", "dismissed",
    ]  # fmt: skip
    closed = post(client, url + "confirm/", ACTIONS["confirm"])
    assert closed.status_code == 409 and closed.json()["code"] == "case_closed"
    assert Case.objects.get(pk=case.pk).status == "dismissed"
