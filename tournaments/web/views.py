"""The tournament pages: the lobby (a tab for sit-and-goes, one for scheduled tournaments,
filters by status, game and currency) and one tournament (its structure, the countdown to
the start or the next level, the entrants and standings, the payouts, the tables, the
register / unregister buttons and the player's own table). Thin: a selector renders, a
service acts; a refusal is said on the page in the currency's units."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.errors import DomainError
from poker.api.common import actor_of
from poker.models import Variant
from tournaments import selectors, services
from tournaments.models import Entry, Tournament
from wallet.web_refusals import refusal_said

TABS = {Tournament.Kind.SIT_AND_GO: "Sit & go", Tournament.Kind.SCHEDULED: "Scheduled"}
LOBBY_ROWS = 100


def _choice(request: HttpRequest, name: str, allowed: Any) -> str | None:
    value = request.GET.get(name) or None
    return value if value in allowed else None


def lobby(request: HttpRequest) -> HttpResponse:
    kind = _choice(request, "kind", TABS) or Tournament.Kind.SIT_AND_GO
    filters = {
        "status": _choice(request, "status", Tournament.Status.values),
        "variant": _choice(request, "variant", Variant.values),
        "currency": _choice(request, "currency", selectors.lobby_currencies()),
    }
    rows = selectors.tournament_rows(selectors.tournament_lobby(kind=kind, **filters)[:LOBBY_ROWS])
    context = {
        "tabs": [{"kind": k, "label": label, "active": k == kind} for k, label in TABS.items()],
        "kind": kind,
        "filters": filters,
        "statuses": Tournament.Status.values,
        "variants": Variant.choices,
        "currencies": selectors.lobby_currencies(),
        "tournaments": [{**row, "variant_label": Variant(row["variant"]).label} for row in rows],
    }
    return render(request, "tournaments/lobby.html", context)


def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise Http404(f"No tournament {tournament_id}.")
    viewer = request.user.pk if request.user.is_authenticated else None
    data = selectors.tournament_detail(tournament=tournament, viewer_id=viewer)
    registering = tournament.status == Tournament.Status.REGISTERING
    registered = data["you"] is not None  # the viewer's live entry, read by the detail
    level = data["level"]
    context = {
        "t": data,
        "variant_label": Variant(tournament.variant).label,
        "can_register": registering and not registered,
        "can_unregister": registering and registered,
        "starts_at": tournament.starts_at,
        "levels": [
            {**lv, "number": n, "current": level is not None and level["number"] == n}
            for n, lv in enumerate(tournament.levels, start=1)
        ],
        "payouts": sorted(data["payouts"].items(), key=lambda item: int(item[0])),
    }
    return render(request, "tournaments/detail.html", context)


def _act(
    request: HttpRequest, tournament_id: int, service: Callable[..., Entry], done: str
) -> HttpResponse:
    try:
        service(tournament_id=tournament_id, player=request.user, actor=actor_of(request))
    except DomainError as error:
        messages.error(request, refusal_said(error))
    else:
        messages.success(request, done)
    return redirect("web-tournament", tournament_id=tournament_id)


@require_POST
@login_required(login_url="web-login")
def register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, services.tournament_register, "You are registered.")


@require_POST
@login_required(login_url="web-login")
def unregister(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        services.tournament_unregister,
        "You are unregistered: your buy-in and fee are refunded.",
    )
