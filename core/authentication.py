"""API tokens give no staff member their rights without the second factor.

A token is checked by nothing but its key, so it can never carry a passed one-time code.
With ``STAFF_2FA_REQUIRED`` on, the token endpoint therefore issues no token to staff and
a staff member's token made any other way (the admin, before the setting was on) is
refused: 403 ``second_factor_required`` on REST, an anonymous user on the WebSocket. Staff
use the API from their signed-in session, which ``backoffice.otp.StaffOtpMiddleware``
lets through only after its code (README, "Staff"). Players are unaffected.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import authentication

from core.errors import Forbidden


def token_staff_check(*, user: Any) -> None:
    """Raises 403 ``second_factor_required`` when ``user`` may not use an API token."""
    if settings.STAFF_2FA_REQUIRED and (user.is_staff or user.is_superuser):
        raise Forbidden(
            "Staff use the API from a signed-in session that passed its second factor "
            "(/staff/2fa/verify/), not with a token.",
            code="second_factor_required",
        )


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, refusing staff tokens while the second factor is required."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        token_staff_check(user=user)
        return user, token
