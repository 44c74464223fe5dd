"""Staff's second factor: TOTP devices (django-otp), their enrolment, recovery codes and
the gate.

With ``STAFF_2FA_REQUIRED`` on, a staff member's session reaches nothing (the admin, the
``/staff/`` pages, and also the site's pages and the API it could use with staff rights,
such as a hand or a live table with every card) before it has passed a one-time code
(``request.user.is_verified()``, set by django-otp's middleware); the API answers it 403
``second_factor_required``. A member who enrolled a device is held to it whatever the
setting (``make run`` too): enrolling is a promise that the password alone is not enough.
Enrolment also issues one-time recovery codes (django-otp's static tokens), accepted where
a code from the app is. Token-authenticated API calls carry no session and are not
gated here (README, "Staff"). A staff member without a confirmed device is sent to
enrol one (``/staff/2fa/setup/``), one with a device to type its code
(``/staff/2fa/verify/``). Enrolling needs no earlier factor only while the member has no
confirmed device: otherwise someone who learnt the password could add a device of their own.
"""

from __future__ import annotations

from base64 import b32encode
from collections.abc import Callable
from urllib.parse import quote

import qrcode
import qrcode.image.svg
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django_otp import devices_for_user, match_token, user_has_device
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.authentication import second_factor_required
from core.errors import Forbidden, InvalidRequest
from staff.log import staff_log_record

#: The name of the device a staff member enrols from the setup page.
DEVICE_NAME = "staff authenticator"
#: The name of the device holding a member's recovery codes, and how many it holds.
RECOVERY_NAME = "recovery codes"
RECOVERY_CODES = 10
#: Who may make recovery codes for another member: whoever may change their devices.
RECOVERY_PERMISSION = "otp_static.change_staticdevice"
#: What a staff session may reach before its second factor: the way in and out.
_OPEN = (
    "/admin/login/",
    "/admin/logout/",
    "/staff/2fa/",
    "/login/",
    "/logout/",
    f"/{settings.STATIC_URL.strip('/')}/",
    "/healthz",
    "/favicon.ico",
)


class OtpInvalid(InvalidRequest):
    default_code = "otp_invalid"


class StaffOtpMiddleware:
    """Sends a staff session without a passed second factor to enrol or verify (after
    ``OTPMiddleware``). A signed-in player gets 403 on the admin (not its login form:
    they are signed in, just not allowed); anonymous visitors go to the login page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        if (
            request.path.startswith("/admin/")
            and not request.path.startswith(_OPEN)
            and user.is_authenticated
            and not (user.is_staff or user.is_superuser)
        ):
            raise PermissionDenied("The admin is for staff.")
        if (
            not request.path.startswith(_OPEN)
            and user.is_authenticated
            and not user.is_verified()  # type: ignore[union-attr]  # django-otp adds is_verified() to the user at run time
            and second_factor_required(user=user)
        ):
            if request.path.startswith("/api/"):
                return JsonResponse(
                    {
                        "code": "second_factor_required",
                        "message": "Staff sessions need their second factor first: "
                        "/staff/2fa/verify/ (or use a token).",
                        "extra": {},
                    },
                    status=403,
                )
            step = "backoffice:otp-verify" if user_has_device(user) else "backoffice:otp-setup"
            return HttpResponseRedirect(
                f"{reverse(step)}?next={quote(request.get_full_path(), safe='/')}"
            )
        return self.get_response(request)


def otp_device_pending(*, user: AbstractBaseUser) -> TOTPDevice:
    """The staff member's device being enrolled (created on first call, same secret after)."""
    if not getattr(user, "is_staff", False):
        raise Forbidden("Only staff enrol a second factor.", code="permission_denied")
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)


def _throttle_check(device: TOTPDevice) -> None:
    """Each wrong code doubles the wait before the device checks another (django-otp's
    throttle): a right code typed too soon is refused too, so say why."""
    allowed, _ = device.verify_is_allowed()
    if not allowed:
        raise OtpInvalid(
            "Too many wrong codes: wait a few seconds and try again.", code="otp_throttled"
        )


def _clean(token: str) -> str:
    # Recovery codes are lower-case base32; people copy them with spaces or in capitals.
    return "".join((token or "").split()).lower()


def _recovery_codes_issue(user: AbstractBaseUser) -> list[str]:
    """Replaces the member's recovery codes with :data:`RECOVERY_CODES` new ones (inside
    the caller's transaction); the codes are shown once, by the caller."""
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name=RECOVERY_NAME, confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return codes


def otp_device_confirm(*, user: AbstractBaseUser, token: str) -> tuple[TOTPDevice, list[str]]:
    """Confirms the pending device with a code from the app (it proves the secret was
    copied right) and issues the member's recovery codes: the device and the codes, to
    show once. A wrong code raises ``OtpInvalid`` and confirms nothing."""
    device = otp_device_pending(user=user)
    _throttle_check(device)
    if not device.verify_token((token or "").strip()):
        raise OtpInvalid("That code does not match: check the app's clock and try again.")
    with transaction.atomic(durable=True):
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        codes = _recovery_codes_issue(user)
        staff_log_record(
            actor=user,
            action="staff.2fa_enrol",
            target=f"user:{user.pk}",
            data={"device": device.persistent_id, "recovery_codes": len(codes)},
        )
    return device, codes


def otp_recovery_codes_regenerate(*, actor: AbstractBaseUser, user: AbstractBaseUser) -> list[str]:
    """New recovery codes for ``user`` (the old ones stop working), to show once: by the
    member from a session that passed its second factor, or by an admin for a member
    who lost theirs."""
    if not user_has_device(user):
        raise InvalidRequest(
            "Recovery codes come with an enrolled device: enrol one first.", code="otp_not_enrolled"
        )
    with transaction.atomic(durable=True):
        codes = _recovery_codes_issue(user)
        staff_log_record(
            actor=actor,
            action="staff.2fa_recovery_codes",
            target=f"user:{user.pk}",
            data={"recovery_codes": len(codes)},
        )
    return codes


def otp_device_verify(*, user: AbstractBaseUser, token: str) -> Device:
    """The confirmed device that accepts ``token`` (each code once: an app's code, or a
    recovery code, which the staff log records with how many are left), or ``OtpInvalid``."""
    for device in devices_for_user(user):
        _throttle_check(device)
    device = match_token(user, _clean(token))
    if device is None:
        raise OtpInvalid("That code does not match (or was used already).")
    if isinstance(device, StaticDevice):
        with transaction.atomic(durable=True):
            staff_log_record(
                actor=user,
                action="staff.2fa_recovery_code_used",
                target=f"user:{user.pk}",
                data={"codes_left": device.token_set.count()},
            )
    return device  # type: ignore[no-any-return]  # django-otp's match_token is untyped


def otp_secret(device: TOTPDevice) -> str:
    """The device's secret as an authenticator app takes it typed in (base32)."""
    return b32encode(device.bin_key).decode("ascii")


def otp_qr_svg(device: TOTPDevice) -> str:
    """The device's ``otpauth://`` address as an inline SVG QR code, drawn here (no image
    request, nothing inline for the Content-Security-Policy to refuse: paths, no styles)."""
    image = qrcode.make(device.config_url, image_factory=qrcode.image.svg.SvgPathImage)
    return image.to_string(encoding="unicode")  # type: ignore[no-any-return]  # qrcode is untyped
