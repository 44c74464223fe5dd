"""Thin page views: they render a template with what a selector returns.

The table page embeds the viewer's current view (the same shape as the WebSocket
``snapshot``) so it renders at once; ``table.js`` then keeps it live over the socket.
Playing (sitting, acting, chatting) needs a login; anyone may watch.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import views as static_views
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.views.decorators.csrf import ensure_csrf_cookie
from rest_framework.exceptions import Throttled

from core.errors import DomainError, NotFound
from core.throttling import login_failed, login_throttle_check
from poker import selectors
from poker.full_view import full_view_table_open
from poker.models import Table, Variant
from poker.web.forms import HandFilterForm


def _variant_label(code: str) -> str:
    return str(Variant(code).label) if code in Variant.values else code


def lobby(request: HttpRequest) -> HttpResponse:
    """Every table that is not closed, with stakes, seats taken and the average pot."""
    tables = [{**t, "variant_label": _variant_label(t["variant"])} for t in selectors.lobby()]
    return render(request, "poker/lobby.html", {"tables": tables})


@ensure_csrf_cookie
def fairness(request: HttpRequest) -> HttpResponse:
    """How deals are proven fair, a form to verify any deal in the browser, the player's
    client seed, and with ``?hand=<id>`` that hand's proof (``fairness.js`` fetches it)."""
    hand = request.GET.get("hand", "")
    hand_id = int(hand) if hand.isdigit() and len(hand) < 19 else None
    return render(request, "poker/fairness.html", {"hand_id": hand_id})


def refused(request: HttpRequest, error: DomainError) -> HttpResponse:
    """A page's typed refusal, said in words (its code on the page for scripts and tests)."""
    return render(request, "poker/refused.html", {"error": error}, status=error.status)


@ensure_csrf_cookie
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """The live table; the view embedded is the caller's own (their cards only). Risk and
    admin staff add ``?full=1`` for the live staff view (``poker.full_view``): the table as
    a spectator sees it, and every card of its hands once they have ended, which the page
    reads from the hand API's staff view. Opening it bars the watcher from a seat there."""
    full = request.GET.get("full") == "1"
    if not Table.objects.filter(pk=table_id).exists():
        raise Http404(f"No table {table_id}.")
    seat_blocked_until = None
    if full:
        try:
            seat_blocked_until = full_view_table_open(user=request.user, table_id=table_id)
        except DomainError as error:
            return refused(request, error)
    viewer = request.user.pk if request.user.is_authenticated else None
    view = selectors.table_view(table_id=table_id, viewer_id=viewer)
    config: dict[str, Any] = {
        "table_id": table_id,
        "user": request.user.get_username() if viewer is not None else None,
        "ws_path": f"/ws/tables/{table_id}/",
        "api_base": f"/api/v1/tables/{table_id}/",
        "login_url": f"{reverse('web-login')}?next={request.path}",
        "full": full,
        "full_delay": settings.STAFF_FULL_VIEW_DELAY_HANDS,
        "hands_api": "/api/v1/hands/",
        # The pace of an all-in run-out on the page (the server's pause allows for it).
        "runout_street_ms": settings.POKER_RUNOUT_STREET_MS,
    }
    history = _recent_history(table_id, view["version"])
    return render(
        request,
        "poker/table.html",
        {
            "table": view["table"],
            "variant_label": _variant_label(view["table"]["variant"]),
            "view": view,
            "history": history,
            "config": config,
            "seat_blocked_until": seat_blocked_until,
        },
    )


#: How many recent table updates the page replays into its hand log and chat on load.
HISTORY_UPDATES = 60


def _recent_history(table_id: int, version: int) -> list[dict[str, Any]]:
    """The events of the last public updates (what everyone watching was sent), with the
    seat names of their time, so a page opened mid-hand shows the log so far."""
    updates = selectors.updates_since(
        table_id=table_id, from_version=max(0, version - HISTORY_UPDATES)
    )
    return [
        {
            "version": u["version"],
            "events": u.get("events") or [],
            "names": {s["seat"]: s["username"] for s in (u.get("public") or {}).get("seats", [])},
        }
        for u in updates or []
        if u.get("version", 0) <= version
    ]


#: Hands per page of "My hands".
HANDS_PER_PAGE = 25
#: The export formats offered on "My hands" (the export jobs API knows them).
EXPORT_FORMATS = (
    ("phh", "PHH (pokerkit)"),
    ("pokerstars", "PokerStars text"),
    ("ohh", "Open Hand History (JSON)"),
)


_SUIT_SYMBOL = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}


def _faces(cards: str | None) -> list[dict[str, str]]:
    """Cards as text ("Qh8h") -> what the page draws for each, as table.js draws them."""
    codes = [cards[i : i + 2] for i in range(0, len(cards or ""), 2)] if cards else []
    return [
        {"code": c, "suit": c[1], "text": ("10" if c[0] == "T" else c[0]) + _SUIT_SYMBOL[c[1]]}
        for c in codes
    ]


@login_required(login_url="web-login")
@ensure_csrf_cookie
def hands(request: HttpRequest) -> HttpResponse:
    """The caller's finished hands, newest first, filtered by the query string; a page of
    rows with their seat, position, cards and result, and the export panel."""
    player_id = request.user.pk
    assert player_id is not None  # login_required
    form = HandFilterForm(request.GET, tables=selectors.tables_played(player_id=player_id))
    if not form.is_valid():
        context = {"form": form, "rows": [], "page": None, "export_formats": EXPORT_FORMATS}
        return render(request, "poker/hands.html", context, status=400)
    filters = form.cleaned_data
    summaries = selectors.hands_of(
        player_id=player_id,
        table_id=filters["table"],
        since=filters["since"],
        until=filters["until"],
        result=filters["result"] or None,
    )
    page = Paginator(summaries, HANDS_PER_PAGE).get_page(request.GET.get("page"))
    rows = [
        {
            **row,
            "card_faces": _faces(row["you"]["cards"]),
            "board_faces": _faces(row["board"]),
        }
        for row in selectors.hand_rows(summaries=list(page.object_list), player_id=player_id)
    ]
    query = request.GET.copy()
    query.pop("page", None)
    export_filters = {
        "tables": [filters["table"]] if filters["table"] is not None else [],
        "since": filters["since"].isoformat() if filters["since"] else None,
        "until": filters["until"].isoformat() if filters["until"] else None,
        "result": filters["result"] or None,
    }
    return render(
        request,
        "poker/hands.html",
        {
            "form": form,
            "rows": rows,
            "page": page,
            "query": query.urlencode(),
            "export_formats": EXPORT_FORMATS,
            "export_filters": export_filters,
        },
    )


@login_required(login_url="web-login")
def hand_replayer(request: HttpRequest, hand_id: int) -> HttpResponse:
    """A hand you played, step by step, as the hand API shows it to you; staff add
    ``?full=1`` to see every card of any hand (the API's full view)."""
    full = request.GET.get("full") == "1"
    if full:
        if not request.user.is_staff:
            raise PermissionDenied("The full hand view is for staff only.")
        # Every card is the staff hand view's (it checks the permission and logs the view).
        return redirect("backoffice:hand", hand_id=hand_id)
    try:
        detail = selectors.hand_detail(hand_id=hand_id, viewer_id=request.user.pk, full=full)
    except NotFound:
        raise Http404(f"No hand {hand_id} in your history.") from None
    readable = detail["readable"]
    hand = {
        "id": detail["id"],
        "number": detail["number"],
        "table": detail["table"],
        "started_at": detail["started_at"],
        "ended_at": detail["ended_at"],
        "full": full,
    }
    return render(
        request,
        "poker/hand.html",
        {
            "hand": hand,
            "readable": readable,
            "variant_label": _variant_label(readable["variant"]),
            "replay": {**readable, "hand": hand, "viewer": request.user.get_username()},
        },
    )


class LoginView(auth_views.LoginView):
    template_name = "poker/login.html"
    redirect_authenticated_user = True
    next_page = reverse_lazy("lobby")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The same failed-login throttle as the API's token endpoint (core.throttling).
        username = str(request.POST.get("username", ""))
        try:
            login_throttle_check(request, username)
        except Throttled as exc:
            # An unbound form: binding it would check the password after all.
            form = self.get_form_class()(request)
            context = self.get_context_data(form=form, throttled=str(exc.detail))
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(math.ceil(exc.wait or 1))
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        login_failed(self.request, str(self.request.POST.get("username", "")))
        return super().form_invalid(form)


class LogoutView(auth_views.LogoutView):
    """POST logs out. GET only asks, with the form: any page could make a browser GET this
    address (a link, an image), so a GET that logged out would be a cross-site request."""

    next_page = reverse_lazy("lobby")
    http_method_names = ["get", "post", "options"]
    template_name = "poker/logout.html"


def favicon(request: HttpRequest) -> HttpResponse:
    """The site's icon where browsers look for it first (``/favicon.ico``); an SVG."""
    return static_views.serve(request, "poker/favicon.svg", insecure=True)


def static(request: HttpRequest, path: str) -> HttpResponse:
    """Static files straight from the app folders (the finders), in every mode.

    The pages must work on a machine with no internet and no separate file server, and
    ``uvicorn`` serves nothing by itself; our assets are a few small files.
    """
    return static_views.serve(request, path, insecure=True)
