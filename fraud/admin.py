"""Fraud review in the admin: the case queue by score, and a review page per case.

The review page shows what a reviewer decides on: the players, the features against the
room's baseline, the chips that flowed between them, the evidence hands (each linked to
the hand replayer with every card), a picture of the pairs inside a ring, shared
addresses and devices as context, and the log. Its forms call the review services
(assign to me, start review, note, dismiss, confirm with or without a freeze); nothing
is edited directly, and the log cannot be edited at all.
"""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from core.admin import ReadOnlyAdmin
from core.errors import DomainError
from fraud import selectors, services
from fraud.models import AnalysisRun, Case, CaseLogEntry


class NoteForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=4000)


class DecisionForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=4000)
    freeze = forms.BooleanField(
        required=False, help_text="Hold the players' withdrawals and table play (confirm only)."
    )


@admin.register(Case)
class CaseAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # django-stubs: generic in the model
    list_display = (
        "id",
        "who",
        "kinds_text",
        "score_text",
        "status",
        "assignee",
        "hands_together",
        "updated_at",
    )
    list_filter = ("status",)
    search_fields = ("=id", "players__username", "subject")
    ordering = ("-score", "-id")
    list_select_related = ("assignee",)

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).prefetch_related("players")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="players")
    def who(self, case: Case) -> str:
        return ", ".join(sorted(u.get_username() for u in case.players.all()))

    @admin.display(description="kinds")
    def kinds_text(self, case: Case) -> str:
        return ", ".join(k.replace("_", " ") for k in case.kinds)

    @admin.display(description="score", ordering="score")
    def score_text(self, case: Case) -> str:
        return f"{case.score:.2f}"

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<id:case_id>/change/",
                self.admin_site.admin_view(self.review_view),
                name="fraud_case_change",
            ),
            path(
                "<id:case_id>/act/<str:action>/",
                self.admin_site.admin_view(self.act_view),
                name="fraud_case_act",
            ),
        ]
        return own + super().get_urls()

    def review_view(self, request: HttpRequest, case_id: int) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            case = selectors.case_get(case_id=case_id)
        except DomainError as error:
            self.message_user(request, error.message, messages.ERROR)
            return HttpResponseRedirect(reverse("admin:fraud_case_changelist"))
        names = {u.pk: u.get_username() for u in case.players.all()}
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Case {case.pk}: {', '.join(sorted(names.values()))}",
            "case": case,
            "names": names,
            "features": _feature_rows(case),
            "flows": [
                {
                    **f,
                    "from_name": names.get(f.get("from"), f.get("from")),
                    "to_name": names.get(f.get("to"), f.get("to")),
                }
                for f in case.chip_flow
            ],
            "graph": ring_picture(case, names),
            "log": list(case.log.all()),
            "can_act": self.has_change_permission(request, case),
            "live": case.status in Case.LIVE,
            "note_form": NoteForm(),
            "decision_form": DecisionForm(),
        }
        return TemplateResponse(request, "admin/fraud/case/review.html", context)

    def act_view(self, request: HttpRequest, case_id: int, action: str) -> HttpResponse:
        if request.method != "POST" or not self.has_change_permission(request):
            raise PermissionDenied
        back = HttpResponseRedirect(reverse("admin:fraud_case_change", args=[case_id]))
        user: Any = request.user
        try:
            if action == "assign-me":
                services.case_assign(case_id=case_id, assignee_id=user.pk, by=user)
            elif action == "review":
                services.case_review(case_id=case_id, by=user)
            elif action == "note":
                form = NoteForm(request.POST)
                if not form.is_valid():
                    raise _FormError(form)
                services.case_note(case_id=case_id, text=form.cleaned_data["text"], by=user)
            elif action in ("dismiss", "confirm"):
                form = DecisionForm(request.POST)
                if not form.is_valid():
                    raise _FormError(form)
                reason = form.cleaned_data["reason"]
                if action == "dismiss":
                    services.case_dismiss(case_id=case_id, reason=reason, by=user)
                else:
                    services.case_confirm(
                        case_id=case_id, reason=reason, freeze=form.cleaned_data["freeze"], by=user
                    )
            else:
                raise PermissionDenied
        except DomainError as error:
            self.message_user(request, error.message, messages.ERROR)
        except _FormError as error:
            self.message_user(request, error.text, messages.ERROR)
        else:
            self.message_user(request, f"Case {case_id}: {action.replace('-', ' ')} done.")
        return back


class _FormError(Exception):
    def __init__(self, form: forms.Form) -> None:
        self.text = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())


def _feature_rows(case: Case) -> list[dict[str, Any]]:
    """{kind, name, value, baseline} rows of the case's features, for a table."""
    rows = []
    for kind, named in sorted(case.features.items()):
        if not isinstance(named, dict):
            continue
        for name, item in sorted(named.items()):
            value = item.get("value") if isinstance(item, dict) else item
            baseline = item.get("baseline") if isinstance(item, dict) else None
            rows.append({"kind": kind, "name": name, "value": value, "baseline": baseline})
    return rows


#: The picture's size (SVG user units) and the circle its players stand on.
_SIZE, _RADIUS = 320, 115


def ring_picture(case: Case, names: dict[int, str]) -> dict[str, Any]:
    """Nodes on a circle and the scored pairs between them as edges (width by score), for
    an inline SVG: a ring's shape at a glance, drawn by the server (no script)."""
    ids = sorted(names)
    centre = _SIZE / 2
    at = {
        pid: (
            centre + _RADIUS * math.cos(2 * math.pi * k / len(ids) - math.pi / 2),
            centre + _RADIUS * math.sin(2 * math.pi * k / len(ids) - math.pi / 2),
        )
        for k, pid in enumerate(ids)
    }
    top = max((float(p.get("score", 0)) for p in case.pairs), default=0.0) or 1.0
    edges = []
    for pair in case.pairs:
        a, b = pair.get("a"), pair.get("b")
        if a in at and b in at:
            (x1, y1), (x2, y2) = at[a], at[b]
            width = 1 + 7 * float(pair.get("score", 0)) / top
            label = f"{', '.join(pair.get('kinds', []))} {float(pair.get('score', 0)):.1f}"
            edges.append({"x1": x1, "y1": y1, "x2": x2, "y2": y2, "width": width, "label": label})
    nodes = [{"x": x, "y": y, "label_y": y + 30, "name": names[pid]} for pid, (x, y) in at.items()]
    return {"size": _SIZE, "nodes": nodes, "edges": edges}


@admin.register(CaseLogEntry)
class CaseLogEntryAdmin(ReadOnlyAdmin):
    """The review log, read-only (the database refuses changes too)."""

    list_display = ("at", "case", "action", "actor", "text")
    list_filter = ("action",)
    search_fields = ("=case__id", "actor__username", "text")
    list_select_related = ("case", "actor")


@admin.register(AnalysisRun)
class AnalysisRunAdmin(ReadOnlyAdmin):
    """Every run of the analysis: its progress while it runs, what it found after."""

    list_display = ("id", "started_at", "status", "rebuild", "progress", "finished_at", "found")
    list_filter = ("status", "rebuild")
    readonly_fields = ("summary", "error")

    @admin.display(description="hands counted")
    def progress(self, run: AnalysisRun) -> str:
        return f"{run.hands_done:,} / {run.hands_total:,} ({run.chunks_done}/{run.chunks_total} chunks)"

    @admin.display(description="cases opened / updated")
    def found(self, run: AnalysisRun) -> str:
        s = run.summary or {}
        return f"{s.get('opened', '-')} / {s.get('updated', '-')}" if s else "-"
