"""Thin page views: they render a template with what a selector returns.

The table page embeds the viewer's current view (the same shape as the WebSocket
``snapshot``) so it renders at once; ``table.js`` then keeps it live over the socket.
Playing (sitting, acting, chatting) needs a login; anyone may watch.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.staticfiles import views as static_views
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.views.decorators.csrf import ensure_csrf_cookie
from rest_framework.exceptions import Throttled

from core.throttling import login_failed, login_throttle_check
from poker import selectors
from poker.models import Table, Variant


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


@ensure_csrf_cookie
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """The live table; the view embedded is the caller's own (their cards only)."""
    if not Table.objects.filter(pk=table_id).exists():
        raise Http404(f"No table {table_id}.")
    viewer = request.user.pk if request.user.is_authenticated else None
    view = selectors.table_view(table_id=table_id, viewer_id=viewer)
    config: dict[str, Any] = {
        "table_id": table_id,
        "user": request.user.get_username() if viewer is not None else None,
        "ws_path": f"/ws/tables/{table_id}/",
        "api_base": f"/api/v1/tables/{table_id}/",
        "login_url": f"{reverse('web-login')}?next={request.path}",
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
    next_page = reverse_lazy("lobby")


def static(request: HttpRequest, path: str) -> HttpResponse:
    """Static files straight from the app folders (the finders), in every mode.

    The pages must work on a machine with no internet and no separate file server, and
    ``uvicorn`` serves nothing by itself; our assets are a few small files.
    """
    return static_views.serve(request, path, insecure=True)
