"""The case queue and review page in the admin."""

from __future__ import annotations

import pytest
from django.test import Client

from fraud.models import Case
from wallet.models import Restriction

pytestmark = pytest.mark.django_db


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_queue_lists_cases_by_score(open_case, reviewer):
    low, high = open_case(score=1.5), open_case(score=7.25)
    page = logged_in(reviewer(act=False)).get("/admin/fraud/case/").content.decode()
    assert page.index(f"/admin/fraud/case/{high.pk}/change/") < page.index(
        f"/admin/fraud/case/{low.pk}/change/"
    )
    assert "7.25" in page


def test_the_review_page_shows_evidence_flow_features_and_the_ring(open_case, reviewer):
    case = open_case(n=3, kinds=("card_sharing",), hand_ids=(501, 502))
    page = logged_in(reviewer()).get(f"/admin/fraud/case/{case.pk}/change/").content.decode()
    assert '<a href="/hands/501/?full=1">501</a>' in page  # the replayer with every card
    assert "flow_bb_per_100" in page and "55.000" in page and "0.300" in page
    assert page.count("<circle") == 3 and page.count("<line") == 3  # three pairs in the ring
    for user in case.players.all():
        assert user.username in page
    assert "Confirm" in page and "Dismiss" in page


def test_a_reviewer_confirms_with_a_freeze_from_the_page(open_case, reviewer):
    case = open_case()
    client = logged_in(reviewer())
    response = client.post(f"/admin/fraud/case/{case.pk}/act/confirm/",
                           {"reason": "dumping in 12 hands", "freeze": "on"})  # fmt: skip
    assert response.status_code == 302
    assert Case.objects.get(pk=case.pk).status == "confirmed"
    assert Restriction.objects.filter(source=f"fraud_case:{case.pk}").count() == 2
    page = client.get(response["Location"]).content.decode()
    assert "Accounts frozen" in page and "dumping in 12 hands" in page


def test_a_decision_without_a_reason_is_refused_on_the_page(open_case, reviewer):
    case = open_case()
    client = logged_in(reviewer())
    response = client.post(f"/admin/fraud/case/{case.pk}/act/dismiss/", {"reason": ""},
                           follow=True)  # fmt: skip
    assert "reason" in response.content.decode()
    assert Case.objects.get(pk=case.pk).status == "open"


def test_only_reviewers_reach_the_cases(open_case, reviewer, make_user):
    case = open_case()
    player = logged_in(case.players.first())
    assert player.get(f"/admin/fraud/case/{case.pk}/change/").status_code == 403
    viewer = logged_in(reviewer(act=False))
    assert viewer.get(f"/admin/fraud/case/{case.pk}/change/").status_code == 200
    refused = viewer.post(f"/admin/fraud/case/{case.pk}/act/confirm/",
                          {"reason": "x", "freeze": "on"})  # fmt: skip
    assert refused.status_code == 403
    assert logged_in(make_user(staff=True)).get("/admin/fraud/case/").status_code == 403
    assert Case.objects.get(pk=case.pk).status == "open" and not Restriction.objects.exists()
