"""The staff pages (mounted at ``/staff/``): staff only, each behind its own permission."""

from __future__ import annotations

from django.urls import URLPattern, path

from backoffice import dashboard

app_name = "backoffice"

urlpatterns: list[URLPattern] = [
    path("", dashboard.page, name="dashboard"),
    path("dashboard.json", dashboard.figures, name="dashboard-figures"),
]
