"""Routes of the poker API (mounted under /api/v1/)."""

from __future__ import annotations

from django.urls import path

from poker.api import fairness, views

urlpatterns = [
    path("tables/", views.TableListView.as_view(), name="table-list"),
    path("tables/<int:table_id>/", views.TableDetailView.as_view(), name="table-detail"),
    path("tables/<int:table_id>/state/", views.TableStateView.as_view(), name="table-state"),
    path("tables/<int:table_id>/sit/", views.SitView.as_view(), name="table-sit"),
    path("tables/<int:table_id>/leave/", views.LeaveView.as_view(), name="table-leave"),
    path("tables/<int:table_id>/sit-out/", views.SitOutView.as_view(), name="table-sit-out"),
    path("tables/<int:table_id>/sit-in/", views.SitInView.as_view(), name="table-sit-in"),
    path("tables/<int:table_id>/top-up/", views.TopUpView.as_view(), name="table-top-up"),
    path("tables/<int:table_id>/actions/", views.ActView.as_view(), name="table-actions"),
    path("hands/", views.HandListView.as_view(), name="hand-list"),
    path("hands/<int:hand_id>/", views.HandDetailView.as_view(), name="hand-detail"),
    path(
        "hands/<int:hand_id>/fairness/",
        fairness.HandFairnessView.as_view(),
        name="hand-fairness",
    ),
    path("fairness/client-seed/", fairness.ClientSeedView.as_view(), name="fairness-client-seed"),
    path("fairness/verify/", fairness.VerifyView.as_view(), name="fairness-verify"),
]
