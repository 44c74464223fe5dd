"""Routes of the tournament API (mounted under /api/v1/)."""

from __future__ import annotations

from django.urls import path

from tournaments.api import views

urlpatterns = [
    path("tournaments/", views.TournamentListView.as_view(), name="tournament-list"),
    path(
        "tournaments/<id:tournament_id>/",
        views.TournamentDetailView.as_view(),
        name="tournament-detail",
    ),
    path(
        "tournaments/<id:tournament_id>/summary/",
        views.TournamentSummaryView.as_view(),
        name="tournament-summary",
    ),
    path(
        "tournaments/<id:tournament_id>/register/",
        views.RegisterView.as_view(),
        name="tournament-register",
    ),
    path(
        "tournaments/<id:tournament_id>/unregister/",
        views.UnregisterView.as_view(),
        name="tournament-unregister",
    ),
    path(
        "tournaments/<id:tournament_id>/cancel/",
        views.CancelView.as_view(),
        name="tournament-cancel",
    ),
]
