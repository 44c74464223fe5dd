"""Reads of the fraud review (cases for staff; players never read anything here)."""

from __future__ import annotations

from django.db.models import QuerySet

from core.errors import NotFound
from fraud.models import Case


def case_list(*, status: str | None = None) -> QuerySet[Case]:
    """Cases by score, strongest first, with their players and assignee loaded."""
    cases = Case.objects.select_related("assignee").prefetch_related("players")
    if status:
        cases = cases.filter(status=status)
    return cases.order_by("-score", "-id")


def case_get(*, case_id: int) -> Case:
    """One case with its players, assignee and review log loaded."""
    case = (
        Case.objects.select_related("assignee")
        .prefetch_related("players", "log__actor")
        .filter(pk=case_id)
        .first()
    )
    if case is None:
        raise NotFound(f"No case {case_id}.", code="case_not_found")
    return case
