"""Routes of the tournament pages (mounted at the site root)."""

from __future__ import annotations

from django.urls import path

from tournaments.web import views

urlpatterns = [
    path("tournaments/", views.lobby, name="web-tournaments"),
    path("tournaments/<id:tournament_id>/", views.detail, name="web-tournament"),
    path(
        "tournaments/<id:tournament_id>/register/", views.register, name="web-tournament-register"
    ),
    path(
        "tournaments/<id:tournament_id>/unregister/",
        views.unregister,
        name="web-tournament-unregister",
    ),
]
