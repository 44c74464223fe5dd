"""Routes of the web pages (mounted at the site root)."""

from __future__ import annotations

from django.conf import settings
from django.urls import path

from poker.web import account, views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("login/", views.LoginView.as_view(), name="web-login"),
    path("logout/", views.LogoutView.as_view(), name="web-logout"),
    path("favicon.ico", views.favicon, name="web-favicon"),
    path("tables/<id:table_id>/", views.table, name="web-table"),
    path("hands/", views.hands, name="web-hands"),
    path("hands/<id:hand_id>/", views.hand_replayer, name="web-hand"),
    path("fairness/", views.fairness, name="web-fairness"),
    # The account's history shows the hands too: it is composed here, above the wallet.
    path("account/history/", account.history, name="web-account-history"),
    path(f"{settings.STATIC_URL.strip('/')}/<path:path>", views.static, name="web-static"),
]
