"""Routes of the export API (mounted under /api/v1/)."""

from __future__ import annotations

from django.urls import path

from handhistory.api import views

urlpatterns = [
    path("exports/", views.ExportsView.as_view(), name="export-list"),
    path("exports/<id:job_id>/", views.ExportDetailView.as_view(), name="export-detail"),
    path("exports/<id:job_id>/cancel/", views.ExportCancelView.as_view(), name="export-cancel"),
    path(
        "exports/<id:job_id>/download/",
        views.ExportDownloadView.as_view(),
        name="export-download",
    ),
]
