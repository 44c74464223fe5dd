"""The review services: cases from the analysis, staff actions, idempotency, freezes."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, transaction

from core.errors import Forbidden, InvalidRequest, NotFound
from fraud.models import Case, CaseLogEntry
from fraud.services import (
    REOPEN_FACTOR,
    CaseClosed,
    case_assign,
    case_confirm,
    case_dismiss,
    case_note,
    case_review,
    cases_sync,
)
from tests.fraud.review.conftest import suspicion
from wallet.models import Restriction

pytestmark = pytest.mark.django_db


def actions(case: Case) -> list[str]:
    return list(case.log.values_list("action", flat=True))


def test_the_analysis_opens_one_case_per_subject_and_updates_it_after(open_case, reviewer):
    case = open_case(score=5.0)
    players = list(case.players.order_by("pk"))
    assert case.kinds == ["chip_dumping"] and case.hands_together == 40
    result = cases_sync(suspicions=[suspicion(players, score=5.2)])  # a small move: silent
    assert (result.opened, result.updated) == (0, 1)
    cases_sync(suspicions=[suspicion(players, score=8.0, kinds=("chip_dumping", "soft_play"))])
    case.refresh_from_db()
    assert Case.objects.filter(subject=case.subject).count() == 1
    assert case.score == 8.0 and case.kinds == ["chip_dumping", "soft_play"]
    assert actions(case) == ["opened", "rescored"]


def test_a_dismissed_subject_returns_only_with_much_stronger_evidence(open_case, reviewer):
    staff = reviewer()
    case = open_case(score=4.0)
    players = list(case.players.all())
    case_dismiss(case_id=case.pk, reason="brothers; reviewed, honest", by=staff)
    weak = cases_sync(suspicions=[suspicion(players, score=4.0 * REOPEN_FACTOR - 0.1)])
    assert (weak.opened, weak.skipped) == (0, 1)
    strong = cases_sync(suspicions=[suspicion(players, score=4.0 * REOPEN_FACTOR + 0.1)])
    assert strong.opened == 1
    assert list(Case.objects.filter(subject=case.subject).values_list("status", flat=True)
                .order_by("id")) == ["dismissed", "open"]  # fmt: skip


def test_a_confirmed_subject_is_not_reopened(open_case, reviewer):
    case = open_case()
    case_confirm(case_id=case.pk, reason="dumped in 9 hands", freeze=False, by=reviewer())
    result = cases_sync(suspicions=[suspicion(list(case.players.all()), score=99.0)])
    assert result.skipped == 1 and Case.objects.filter(subject=case.subject).count() == 1


def test_a_suspicion_needs_two_players_and_a_kind(make_user):
    lonely = suspicion([make_user(), make_user()])
    with pytest.raises(InvalidRequest):
        cases_sync(suspicions=[lonely.__class__(players=(1,), kinds=("soft_play",), score=1.0)])
    with pytest.raises(InvalidRequest):
        cases_sync(suspicions=[lonely.__class__(players=lonely.players, kinds=(), score=1.0)])
    assert not Case.objects.exists()


def test_case_actions_are_idempotent_by_state(open_case, reviewer):
    staff = reviewer()
    case = open_case()
    for action in (
        lambda: case_assign(case_id=case.pk, assignee_id=staff.pk, by=staff),
        lambda: case_review(case_id=case.pk, by=staff),
        lambda: case_dismiss(case_id=case.pk, reason="honest", by=staff),
    ):
        action()
        action()
    case.refresh_from_db()
    assert case.status == "dismissed" and case.assignee == staff
    assert actions(case) == ["opened", "assigned", "reviewing", "dismissed"]


def test_a_closed_case_refuses_the_other_decision_and_changes_nothing(open_case, reviewer):
    staff = reviewer()
    case = open_case()
    case_dismiss(case_id=case.pk, reason="honest", by=staff)
    before = actions(case)
    with pytest.raises(CaseClosed) as refused:
        case_confirm(case_id=case.pk, reason="changed my mind", freeze=True, by=staff)
    assert refused.value.code == "case_closed"
    with pytest.raises(CaseClosed):
        case_assign(case_id=case.pk, assignee_id=staff.pk, by=staff)
    case.refresh_from_db()
    assert case.status == "dismissed" and actions(case) == before
    assert not Restriction.objects.exists()


def test_decisions_need_a_reason_and_a_reviewer(open_case, reviewer, make_user):
    case = open_case()
    with pytest.raises(InvalidRequest) as no_reason:
        case_dismiss(case_id=case.pk, reason="  ", by=reviewer())
    assert no_reason.value.code == "reason_required"
    for outsider in (make_user(), make_user(staff=True), reviewer(act=False)):
        with pytest.raises(Forbidden):
            case_confirm(case_id=case.pk, reason="x", freeze=True, by=outsider)
        with pytest.raises(Forbidden):
            case_note(case_id=case.pk, text="x", by=outsider)
    with pytest.raises(NotFound):
        case_note(case_id=case.pk + 999, text="x", by=reviewer())
    with pytest.raises(InvalidRequest) as not_staff:
        case_assign(case_id=case.pk, assignee_id=make_user().pk, by=reviewer())
    assert not_staff.value.code == "invalid_assignee"
    case.refresh_from_db()
    assert case.status == "open" and actions(case) == ["opened"]


def test_confirming_with_a_freeze_holds_every_player_once(open_case, reviewer):
    staff = reviewer()
    case = open_case(n=3, kinds=("card_sharing",))
    for _ in range(2):
        case_confirm(case_id=case.pk, reason="ring shares cards", freeze=True, by=staff)
    held = Restriction.objects.filter(source=f"fraud_case:{case.pk}", lifted_at__isnull=True)
    assert sorted(held.values_list("user_id", flat=True)) == sorted(
        case.players.values_list("pk", flat=True)
    )
    assert set(held.values_list("kind", flat=True)) == {"fraud_freeze"}
    assert actions(case) == ["opened", "confirmed", "frozen"]


def test_the_review_log_cannot_be_rewritten(open_case):
    entry = CaseLogEntry.objects.filter(case=open_case()).get()
    with pytest.raises(DatabaseError), transaction.atomic():
        CaseLogEntry.objects.filter(pk=entry.pk).update(text="edited")
    with pytest.raises(DatabaseError), transaction.atomic():
        CaseLogEntry.objects.filter(pk=entry.pk).delete()
    entry.refresh_from_db()
    assert entry.text == ""
