"""The player's responsible-gaming pages: deposit limits, time-out and self-exclusion.

Thin: each page renders what a selector returns and posts its form to the one service
the REST endpoint calls too, so the rules (and their refusals, shown in words) are the
same. Amounts are entered and shown in the currency's units (``wallet.amounts``); the
services take integer minor units.
"""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from core.errors import DomainError
from wallet import responsible, selectors
from wallet.amounts import money_format
from wallet.forms import AmountForm
from wallet.models import DepositLimit, Restriction
from wallet.web_refusals import refusal_said

PERIOD_LABELS = {p.value: p.label for p in DepositLimit.Period}
TIME_OUT_CHOICES = [
    (24, "24 hours"),
    (48, "2 days"),
    (72, "3 days"),
    (168, "1 week"),
    (336, "2 weeks"),
    (504, "3 weeks"),
    (1008, "6 weeks"),
]
SELF_EXCLUSION_CHOICES = [(6, "6 months"), (12, "1 year"), (24, "2 years"), (60, "5 years")]


def _when(value: Any) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC"


class LimitForm(AmountForm):
    period = forms.ChoiceField(choices=list(PERIOD_LABELS.items()))
    amount = forms.CharField(
        required=False,
        max_length=32,
        help_text="Leave empty to remove the limit (after the waiting time).",
    )


class _StartForm(forms.Form):
    #: Chosen when the page is drawn: submitting the form twice starts one restriction.
    request_id = forms.UUIDField(widget=forms.HiddenInput)


class TimeoutForm(_StartForm):
    hours = forms.TypedChoiceField(choices=TIME_OUT_CHOICES, coerce=int)


class SelfExclusionForm(_StartForm):
    months = forms.TypedChoiceField(choices=SELF_EXCLUSION_CHOICES, coerce=int)
    confirm = forms.BooleanField(
        label="I understand that only support can lift it, and not before it ends."
    )


@login_required(login_url="web-login")
def limits(request: HttpRequest) -> HttpResponse:
    """The player's deposit limits (in force, pending, used, left) and the form to set one."""
    form = LimitForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            change = responsible.deposit_limit_set(
                user=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
                currency=form.cleaned_data["currency"],
                period=form.cleaned_data["period"],
                amount=form.cleaned_data["amount"],
            )
        except DomainError as error:
            form.add_error(None, refusal_said(error))
        else:
            messages.success(request, _change_said(form, change))
            return HttpResponseRedirect(reverse("web-account-limits"))
    rows = [
        {
            **row,
            "period_label": PERIOD_LABELS[row["period"]],
            "pending_text": _pending_said(row["pending"], row["currency"]),
        }
        for row in selectors.account_deposit_limits(user_id=request.user.pk)
    ]
    return render(
        request,
        "wallet/limits.html",
        {"form": form, "rows": rows, "delay_hours": settings.WALLET_LIMIT_RAISE_DELAY_HOURS},
    )


def _change_said(form: LimitForm, change: responsible.LimitChange) -> str:
    amount, currency = form.cleaned_data["amount"], form.cleaned_data["currency"]
    period = PERIOD_LABELS[form.cleaned_data["period"]]
    what = (
        f"a limit of {money_format(amount, currency)} per {period}"
        if amount
        else (f"no limit per {period} in {currency}")
    )
    if change.immediate:
        return f"Done: {what} holds now."
    return f"Noted: {what} holds from {_when(change.effective_from)}."


def _pending_said(pending: dict[str, Any] | None, currency: str) -> str:
    if pending is None:
        return ""
    from_ = pending["from"].replace("T", " ")[:16] + " UTC"
    if pending["amount"] is None:
        return f"removed from {from_}"
    return f"{money_format(pending['amount'], currency)} from {from_}"


@login_required(login_url="web-login")
def timeout(request: HttpRequest) -> HttpResponse:
    """The player's time-out or self-exclusion in force, and the forms to take one."""
    user = request.user
    chosen = request.POST.get("kind") if request.method == "POST" else None
    fresh = {"request_id": uuid.uuid4()}
    timeout_form = TimeoutForm(request.POST if chosen == "time_out" else None, initial=fresh)
    exclusion_form = SelfExclusionForm(
        request.POST if chosen == "self_exclusion" else None, initial=fresh
    )
    form = {"time_out": timeout_form, "self_exclusion": exclusion_form}.get(chosen or "")
    if form is not None and form.is_valid():
        data = form.cleaned_data
        try:
            if chosen == "time_out":
                restriction = responsible.timeout_start(
                    user=user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
                    hours=data["hours"],
                    restriction_id=data["request_id"],
                )
            else:
                restriction = responsible.self_exclusion_start(
                    user=user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
                    months=data["months"],
                    restriction_id=data["request_id"],
                )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, f"Done: {restriction_said(restriction)}")
            return HttpResponseRedirect(reverse("web-account-timeout"))
    current = [restriction_shown(r) for r in selectors.account_restrictions(user_id=user.pk)]
    return render(
        request,
        "wallet/timeout.html",
        {"current": current, "timeout_form": timeout_form, "exclusion_form": exclusion_form},
    )


def restriction_shown(r: Restriction) -> dict[str, Any]:
    """A player's own restriction as the pages show it: kind, end and what it means."""
    return {"kind": r.kind, "ends_at": r.ends_at, "said": restriction_said(r)}


#: What a time-out or self-exclusion stops, and what it leaves open.
_PAUSED = "No deposits and no table play meanwhile; withdrawals stay open."


def restriction_said(r: Restriction) -> str:
    if r.kind == Restriction.Kind.SELF_EXCLUSION:
        if r.ends_at is not None and r.ends_at <= timezone.now():
            return f"you have excluded yourself until support lifts it. {_PAUSED}"
        return (
            f"you have excluded yourself until at least {_when(r.ends_at)}; after that, "
            f"only support can lift it. {_PAUSED}"
        )
    return f"you are on a time-out until {_when(r.ends_at)}. {_PAUSED}"
