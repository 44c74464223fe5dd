"""The staff report pages, the player profile and the staff hand view (thin: parse, call
one read, render; ``?format=csv`` streams the same rows as CSV)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.text import slugify

from backoffice import reports
from backoffice.hands import staff_hand_view
from backoffice.profile import player_profile, player_search
from backoffice.reports import RAKE_BY, Period
from core.errors import DomainError, NotFound
from poker.models import Variant
from poker.web.views import refused
from staff.roles import HAND_FULL_PERMISSION, REPORTS_PERMISSION, staff_page
from wallet.amounts import money_format


class PeriodForm(forms.Form):
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def period(self) -> Period:
        default = Period.last()
        if not self.is_valid():
            return default
        since = self.cleaned_data["since"] or default.since
        until = self.cleaned_data["until"] or max(default.until, since)
        if since > until:
            since, until = until, since
        return Period(since=since, until=until)


class _Echo:
    """A file-like object whose ``write`` hands the line back (csv.writer into a stream)."""

    def write(self, value: str) -> str:
        return value


def _csv(name: str, rows: Iterable[list[Any]]) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())
    lines: Iterator[str] = (writer.writerow(row) for row in rows)
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slugify(name)}.csv"'
    return response


def _wants_csv(request: HttpRequest) -> bool:
    return request.GET.get("format") == "csv"


@staff_page(REPORTS_PERMISSION)
def reports_index(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    return render(
        request,
        "backoffice/reports.html",
        {"query": query, "players": player_search(query=query), "rake_by": RAKE_BY},
    )


@staff_page(REPORTS_PERMISSION)
def rake_report(request: HttpRequest, by: str) -> HttpResponse:
    if by not in RAKE_BY:
        raise Http404(f"No rake report by {by!r}.")
    form = PeriodForm(request.GET or None)
    period = form.period()
    rows = reports.rake_report(by=by, period=period)  # type: ignore[arg-type]  # by is checked against RAKE_BY just above; the type is a Literal
    if _wants_csv(request):
        return _csv(f"rake-by-{by}-{period.since}-{period.until}", reports.csv_rows_rake(rows, by))  # type: ignore[arg-type]  # by is checked against RAKE_BY just above; the type is a Literal
    variants = dict(Variant.choices)
    for row in rows:
        row["label"] = variants.get(row["key"], row["key"]) if by == "variant" else row["key"]
        if by == "stake":  # "5/10" in minor units: "€0.05/€0.10", as the lobby names it
            row["label"] = "/".join(
                money_format(int(blind), row["currency"], chips_bare=True)
                for blind in row["key"].split("/")
            )
        row["formatted"] = money_format(row["rake"], row["currency"])
    fees = reports.tournament_fees_report(period=period)
    for row in fees:
        row["formatted"] = money_format(row["fees"], row["currency"])
    return render(
        request,
        "backoffice/reports_rake.html",
        {
            "by": by,
            "rake_by": RAKE_BY,
            "rows": rows,
            "fees": fees,
            "form": form,
            "period": period,
            "query": request.GET.urlencode(),
        },
    )


@staff_page(REPORTS_PERMISSION)
def payments_report(request: HttpRequest) -> HttpResponse:
    form = PeriodForm(request.GET or None)
    period = form.period()
    rows = reports.payments_report(period=period)
    if _wants_csv(request):
        return _csv(f"payments-{period.since}-{period.until}", reports.csv_rows_payments(rows))
    for row in rows:
        row["formatted"] = money_format(row["total"], row["currency"])
        for figures in row["statuses"].values():
            figures["formatted"] = money_format(figures["sum"], row["currency"])
    return render(
        request,
        "backoffice/reports_payments.html",
        {"rows": rows, "form": form, "period": period, "query": request.GET.urlencode()},
    )


def _profile_csv(profile: dict[str, Any]) -> Iterator[list[Any]]:
    yield ["hand", "table", "currency", "seat", "ended_at", "net_minor", "net"]
    for r in profile["hands"]:
        currency = r.table.currency
        yield [
            r.hand_id,
            r.table.name,
            currency,
            r.seat,
            r.ended_at.isoformat(),
            r.net,
            money_format(r.net, currency),
        ]


@staff_page(REPORTS_PERMISSION)
def player_profile_page(request: HttpRequest, user_id: int) -> HttpResponse:
    try:
        profile = player_profile(user_id=user_id)
    except NotFound as error:
        raise Http404(error.message) from None
    if _wants_csv(request):
        return _csv(f"player-{user_id}-hands", _profile_csv(profile))
    for b in profile["balances"]:
        for field in ("balance", "held", "available"):
            b[f"{field}_formatted"] = money_format(b[field], b["currency"])
    for t in profile["totals"]:
        t["net_formatted"] = money_format(t["net"], t["currency"])
    return render(request, "backoffice/profile.html", {"p": profile})


@staff_page(HAND_FULL_PERMISSION)
def hand_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    try:
        view = staff_hand_view(staff=request.user, hand_id=hand_id)  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
    except NotFound as error:
        raise Http404(error.message) from None
    except DomainError as error:  # the every-card rule's refusals, said on the page
        return refused(request, error)
    detail = view["detail"]
    readable = detail["readable"]
    hand = {
        "id": detail["id"],
        "number": detail["number"],
        "table": detail["table"],
        "started_at": detail["started_at"],
        "ended_at": detail["ended_at"],
        "full": True,
    }
    variants = dict(Variant.choices)
    return render(
        request,
        "backoffice/hand.html",
        {
            "hand": hand,
            "readable": readable,
            "variant_label": variants.get(readable["variant"], readable["variant"]),
            "replay": {**readable, "hand": hand, "viewer": request.user.get_username()},
            "proof": view["proof"],
            "verification": view["verification"],
            "transfers": view["transfers"],
        },
    )
