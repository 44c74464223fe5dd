"""The responsible-gaming pages (mounted under ``account/``)."""

from __future__ import annotations

from django.urls import path

from wallet import web_rg

urlpatterns = [
    path("limits/", web_rg.limits, name="web-account-limits"),
    path("timeout/", web_rg.timeout, name="web-account-timeout"),
]
