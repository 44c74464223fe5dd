"""The live staff dashboard (``/staff/``): a page drawn from the figures, and the
figures as JSON, which the page polls every ten seconds to redraw itself."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from backoffice.selectors import dashboard_figures
from staff.roles import REPORTS_PERMISSION, staff_has

#: How often the page asks for fresh figures, in milliseconds.
REFRESH_MS = 10_000

View = Callable[..., HttpResponse]


def staff_only(view: View) -> View:
    """Anonymous visitors go to the admin's login; anyone without a staff role's read
    permission (support and above) gets 403."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), reverse("admin:login"))
        if not staff_has(request.user, REPORTS_PERMISSION):
            raise PermissionDenied(
                f"The dashboard needs the staff permission {REPORTS_PERMISSION!r}."
            )
        return view(request, *args, **kwargs)

    return guarded


@staff_only
def page(request: HttpRequest) -> HttpResponse:
    """The dashboard, rendered with the figures of now (the script keeps them fresh)."""
    context = {
        **admin.site.each_context(request),
        "title": "Live dashboard",
        # The page is wide; the admin's model list is one click away on its index.
        "is_nav_sidebar_enabled": False,
        "figures": dashboard_figures(viewer=request.user),
        "config": {
            "figures_url": reverse("backoffice:dashboard-figures"),
            "refresh_ms": REFRESH_MS,
        },
    }
    return render(request, "backoffice/dashboard.html", context)


@staff_only
def figures(request: HttpRequest) -> JsonResponse:
    """The dashboard's figures as JSON."""
    response = JsonResponse(dashboard_figures(viewer=request.user))
    response["Cache-Control"] = "no-store"
    return response
