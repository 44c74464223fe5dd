"""The staff pages (mounted at ``/staff/``): staff only, each behind its own permission."""

from __future__ import annotations

from django.urls import URLPattern, path

from backoffice import dashboard, otp_views, report_views, tournament_views, withdrawal_views

app_name = "backoffice"

urlpatterns: list[URLPattern] = [
    path("", dashboard.page, name="dashboard"),
    path("dashboard.json", dashboard.figures, name="dashboard-figures"),
    path("2fa/setup/", otp_views.otp_setup, name="otp-setup"),
    path("2fa/verify/", otp_views.otp_verify, name="otp-verify"),
    path("2fa/recovery/", otp_views.otp_recovery, name="otp-recovery"),
    path("2fa/recovery/<id:user_id>/", otp_views.otp_recovery, name="otp-recovery-member"),
    path("reports/", report_views.reports_index, name="reports"),
    path("reports/rake/<str:by>/", report_views.rake_report, name="report-rake"),
    path("reports/payments/", report_views.payments_report, name="report-payments"),
    path("players/<id:user_id>/", report_views.player_profile_page, name="player"),
    path("hands/<id:hand_id>/", report_views.hand_page, name="hand"),
    path("tournaments/", tournament_views.tournaments_page, name="tournaments"),
    path("tournaments/<id:tournament_id>/", tournament_views.tournament_page, name="tournament"),
    path("withdrawals/", withdrawal_views.withdrawals_page, name="withdrawals"),
    path("withdrawals/<uuid:withdrawal_id>/", withdrawal_views.withdrawal_page, name="withdrawal"),
]
