"""Root URL configuration."""

from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from backoffice.admin_login import admin_login
from core import api as core_api
from wallet import web_account

handler404 = "core.exceptions.json_404"
handler500 = "core.exceptions.json_500"

api_v1 = [
    path("auth/register/", core_api.RegisterView.as_view(), name="auth-register"),
    path("auth/token/", core_api.TokenView.as_view(), name="auth-token"),
    path("auth/me/", core_api.MeView.as_view(), name="auth-me"),
    path("", include("poker.api.urls")),
    path("", include("handhistory.api.urls")),
    path("", include("tournaments.api.urls")),
    path("", include("fraud.api.urls")),
]

urlpatterns = [
    path("healthz", core_api.healthz, name="healthz"),
    # The hand row moved from poker to handhistory (docs/architecture.md, "Layers and import
    # directions"): its admin pages' old addresses (bookmarks, links in mails) lead there.
    re_path(
        r"^admin/poker/hand/(?P<rest>.*)$",
        RedirectView.as_view(url="/admin/handhistory/hand/%(rest)s", query_string=True),
    ),
    # The admin's own login page, answering 429 when its throttled form refuses.
    path("admin/login/", admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("staff/", include("backoffice.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file, so the docs run under
    # the site's script-src 'self'; its page keeps one inline <style> block.
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(
            SpectacularSwaggerSplitView.as_view(url_name="schema")
        ),
        name="api-docs",
    ),
    path("api/v1/", include(api_v1)),
    path("api/v1/", include("wallet.urls")),
    path("account/", include("wallet.web_rg_urls")),
    # The player's own pages (sign-up, wallet; the history, which shows hands, is poker.web's).
    path("signup/", web_account.signup, name="web-signup"),
    path("account/", include("wallet.web_account_urls")),
    # The web pages (lobby, login, live table) and their static files.
    path("", include("tournaments.web.urls")),
    path("", include("poker.web.urls")),
]
