"""The admin's login page, throttled like the API's token endpoint and the site's login.

The same counts (core.throttling): a failed admin login counts against the account and
the address, and past the allowance even the right password is refused before it is
checked, with 429, ``Retry-After`` and the reason on the admin's own form.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from rest_framework.exceptions import Throttled

from core.throttling import login_failed, login_throttle_check


class ThrottledAdminAuthenticationForm(AdminAuthenticationForm):
    throttled: Throttled | None = None

    def clean(self) -> dict[str, Any]:
        username = str(self.data.get("username", ""))
        try:
            login_throttle_check(self.request, username)
        except Throttled as exc:
            self.throttled = exc
            raise ValidationError(
                f"{exc.detail} Try again in {math.ceil(exc.wait or 1)} s.", code="throttled"
            ) from None
        try:
            return super().clean()
        except ValidationError:
            login_failed(self.request, username)
            raise


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's login (its form is ``ThrottledAdminAuthenticationForm``, set in
    backoffice.admin); a throttled post answers 429 with ``Retry-After``."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    throttled = getattr(form, "throttled", None)
    if throttled is not None:
        response.status_code = 429
        response["Retry-After"] = str(math.ceil(throttled.wait or 1))
    return response
