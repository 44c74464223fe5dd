"""The staff pages (mounted at ``/staff/``): staff only, each behind its own permission."""

from __future__ import annotations

from django.urls import URLPattern

app_name = "backoffice"

urlpatterns: list[URLPattern] = []
