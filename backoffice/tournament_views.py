"""The staff's tournament pages (``/staff/tournaments/``): every tournament with its state,
a form that creates one from a blind structure template (amounts typed in the currency's
units), and one tournament's page with its cancellation (a reason required). Thin: a post
calls one service, which checks the permission and the structure."""

from __future__ import annotations

import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from core.errors import DomainError, Forbidden
from core.serializers import MAX_INT64
from poker.models import Variant
from staff.roles import staff_has, staff_page
from tournaments.api.serializers import MAX_LEVELS, MAX_PLAYERS
from tournaments.models import StructureTemplate, Tournament
from tournaments.selectors import tournament_detail, tournament_lobby, tournament_rows
from tournaments.services import (
    CANCEL_PERMISSION,
    CREATE_PERMISSION,
    tournament_cancel,
    tournament_create,
)
from wallet.amounts import currency_specs_all, money_parse

VIEW_PERMISSION = "tournaments.view_tournament"
LIST_ROWS = 200
OPEN = (Tournament.Status.REGISTERING,)


def _amount(text: str, currency: str) -> int:
    """A typed amount in minor units; blank or zero is 0 (a fee, bounty or guarantee may
    be none)."""
    typed = (text or "").strip()
    if typed in {"", "0"}:
        return 0
    return money_parse(typed, currency)


class TournamentForm(forms.Form):
    key = forms.UUIDField(widget=forms.HiddenInput)
    template = forms.ModelChoiceField(queryset=StructureTemplate.objects.all(), empty_label=None)
    name = forms.CharField(max_length=100)
    variant = forms.ChoiceField(choices=Variant.choices)
    currency = forms.ChoiceField(choices=())
    buy_in = forms.CharField(help_text="What the prize pool gets of each entry, bounty included.")
    fee = forms.CharField(required=False, help_text="The house's fee per entry.")
    bounty = forms.CharField(required=False, help_text="Part of the buy-in: a knockout bounty.")
    guarantee = forms.CharField(required=False)
    starting_stack = forms.IntegerField(min_value=1, max_value=MAX_INT64, initial=10_000)
    seats_per_table = forms.IntegerField(min_value=2, max_value=10, initial=9)
    min_players = forms.IntegerField(min_value=2, max_value=MAX_PLAYERS, initial=2)
    max_players = forms.IntegerField(min_value=2, max_value=MAX_PLAYERS, initial=9)
    start = forms.DateTimeField(
        required=False,
        help_text="UTC, e.g. 2026-12-01 20:00. Blank: a sit-and-go, started when full.",
    )
    late_registration_levels = forms.IntegerField(min_value=0, max_value=MAX_LEVELS, initial=0)
    payouts = forms.CharField(
        required=False,
        help_text="Percent by place, e.g. 50, 30, 20. Blank: the room's table by field size.",
    )
    action_seconds = forms.IntegerField(min_value=5, max_value=600, initial=30)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["currency"].choices = [(c, c) for c in currency_specs_all()]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        currency = data.get("currency")
        if currency:
            for field in ("buy_in", "fee", "bounty", "guarantee"):
                try:
                    data[field] = _amount(data.get(field) or "", currency)
                except ValidationError as error:
                    self.add_error(field, error)
        payouts = (data.get("payouts") or "").strip()
        try:
            data["payouts"] = [str(Decimal(p)) for p in payouts.split(",")] if payouts else None
        except InvalidOperation:
            self.add_error("payouts", "Percentages separated by commas, e.g. 50, 30, 20.")
        return data

    def service_fields(self) -> dict[str, Any]:
        """What ``tournament_create`` takes, the template's levels and breaks included."""
        data = dict(self.cleaned_data)
        template: StructureTemplate = data.pop("template")
        data.pop("key")
        return {**data, "levels": template.levels, "breaks": template.breaks, "rebuy": None,
                "add_on": None}  # fmt: skip


@staff_page(VIEW_PERMISSION)
def tournaments_page(request: HttpRequest) -> HttpResponse:
    may_create = staff_has(request.user, CREATE_PERMISSION)
    form = TournamentForm(request.POST or None, initial={"key": uuid.uuid4()})
    status = 200
    if request.method == "POST":
        if not may_create:
            raise PermissionDenied(f"Creating a tournament needs {CREATE_PERMISSION!r}.")
        if form.is_valid():
            try:
                created = tournament_create(
                    staff_user=request.user,  # type: ignore[arg-type]  # the guard lets only a signed-in user here
                    key=form.cleaned_data["key"],
                    **form.service_fields(),
                )
            except Forbidden as error:
                raise PermissionDenied(error.message) from None
            except DomainError as error:
                form.add_error(None, error.message)
                status = error.status
            else:
                messages.success(request, f"Tournament {created.name!r} created.")
                return HttpResponseRedirect(reverse("backoffice:tournament", args=[created.pk]))
        else:
            status = 400
    rows = tournament_rows(tournament_lobby()[:LIST_ROWS])
    context = {"tournaments": rows, "form": form, "may_create": may_create}
    return render(request, "backoffice/tournaments.html", context, status=status)


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=255, widget=forms.Textarea(attrs={"rows": 2}))


@staff_page(VIEW_PERMISSION)
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise Http404(f"No tournament {tournament_id}.")
    may_cancel = staff_has(request.user, CANCEL_PERMISSION) and tournament.status in OPEN
    form = CancelForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not may_cancel:
            raise PermissionDenied("This tournament cannot be cancelled by you now.")
        if form.is_valid():
            try:
                tournament_cancel(
                    tournament_id=tournament_id,
                    staff_user=request.user,  # type: ignore[arg-type]  # the guard lets only a signed-in user here
                    reason=form.cleaned_data["reason"],
                )
            except DomainError as error:
                form.add_error(None, error.message)
                status = error.status
            else:
                messages.success(request, "Tournament cancelled: every entry is refunded.")
                return HttpResponseRedirect(reverse("backoffice:tournament", args=[tournament_id]))
        else:
            status = 400
    context = {
        "t": tournament_detail(tournament=tournament, viewer_id=None),
        "form": form,
        "may_cancel": may_cancel,
    }
    return render(request, "backoffice/tournament.html", context, status=status)
