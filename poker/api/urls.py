"""Routes of the poker API (mounted under /api/v1/)."""

from __future__ import annotations

from django.urls import path

from poker.api import commands, fairness, hands, tables

urlpatterns = [
    path("tables/", tables.TableListView.as_view(), name="table-list"),
    path("tables/<id:table_id>/", tables.TableDetailView.as_view(), name="table-detail"),
    path("tables/<id:table_id>/state/", tables.TableStateView.as_view(), name="table-state"),
    path("tables/<id:table_id>/sit/", commands.SitView.as_view(), name="table-sit"),
    path("tables/<id:table_id>/leave/", commands.LeaveView.as_view(), name="table-leave"),
    path("tables/<id:table_id>/sit-out/", commands.SitOutView.as_view(), name="table-sit-out"),
    path("tables/<id:table_id>/sit-in/", commands.SitInView.as_view(), name="table-sit-in"),
    path("tables/<id:table_id>/top-up/", commands.TopUpView.as_view(), name="table-top-up"),
    path("tables/<id:table_id>/actions/", commands.ActView.as_view(), name="table-actions"),
    path("hands/", hands.HandListView.as_view(), name="hand-list"),
    path("hands/<id:hand_id>/", hands.HandDetailView.as_view(), name="hand-detail"),
    path(
        "hands/<id:hand_id>/fairness/",
        fairness.HandFairnessView.as_view(),
        name="hand-fairness",
    ),
    path("fairness/client-seed/", fairness.ClientSeedView.as_view(), name="fairness-client-seed"),
    path("fairness/verify/", fairness.VerifyView.as_view(), name="fairness-verify"),
]
