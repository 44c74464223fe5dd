"""API tokens give no staff member their rights without the second factor.

A token is checked by nothing but its key, so it can never carry a passed one-time code.
Wherever a staff member needs the second factor (:func:`second_factor_required`: with
``STAFF_2FA_REQUIRED`` on, or once they enrolled a device, in every mode), the token
endpoint therefore issues them no token and their token made any other way (the admin,
before the setting was on) is refused: 403 ``second_factor_required`` on REST, an
anonymous user on the WebSocket. Staff
use the API from their signed-in session, which ``backoffice.otp.StaffOtpMiddleware``
lets through only after its code (README, "Staff"). Players are unaffected.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django_otp import user_has_device
from rest_framework import authentication

from core.errors import Forbidden


def second_factor_required(*, user: Any) -> bool:
    """Whether ``user`` reaches nothing before passing a one-time code: staff, while
    ``STAFF_2FA_REQUIRED`` is on or once they enrolled a device (every mode)."""
    return bool(user.is_staff or user.is_superuser) and (
        settings.STAFF_2FA_REQUIRED or user_has_device(user)
    )


def token_staff_check(*, user: Any) -> None:
    """Raises 403 ``second_factor_required`` when ``user`` may not use an API token."""
    if second_factor_required(user=user):
        raise Forbidden(
            "Staff use the API from a signed-in session that passed its second factor "
            "(/staff/2fa/verify/), not with a token.",
            code="second_factor_required",
        )


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, refusing staff tokens where the second factor is required."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        token_staff_check(user=user)
        return user, token
