"""The two-factor pages: enrol a TOTP device (and get recovery codes, shown once), then
type its code (or a recovery code) at each login; new recovery codes on demand."""

from __future__ import annotations

from urllib.parse import quote

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django_otp import login as otp_login
from django_otp import user_has_device
from django_otp.plugins.otp_static.models import StaticToken

from backoffice.otp import (
    RECOVERY_PERMISSION,
    OtpInvalid,
    otp_device_confirm,
    otp_device_pending,
    otp_device_verify,
    otp_qr_svg,
    otp_recovery_codes_regenerate,
    otp_secret,
)
from core.errors import InvalidRequest


class TokenForm(forms.Form):
    token = forms.CharField(max_length=32, label="Code from your app")


class VerifyForm(TokenForm):
    token = forms.CharField(max_length=32, label="Code from your app, or a recovery code")


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return reverse("admin:index")


def _staff(request: HttpRequest) -> None:
    if not (request.user.is_staff or request.user.is_superuser):
        raise PermissionDenied("Two-factor login is for staff.")


@login_required
def otp_setup(request: HttpRequest) -> HttpResponse:
    _staff(request)
    user = request.user
    if user_has_device(user) and not user.is_verified():  # type: ignore[union-attr]  # django-otp adds is_verified() to the user at run time
        # A new device only from a session that passed the existing one.
        return HttpResponseRedirect(f"{reverse('backoffice:otp-verify')}?next={_next(request)}")
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device, codes = otp_device_confirm(user=user, token=form.cleaned_data["token"])  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
        except OtpInvalid as error:
            form.add_error("token", error.message)
        else:
            otp_login(request, device)
            return _recovery_codes_page(request, codes)
    device = otp_device_pending(user=user)  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
    return render(
        request,
        "backoffice/otp_setup.html",
        {
            "form": form,
            "secret": otp_secret(device),
            # Built by qrcode from our own data: a <svg> of paths, nothing from the user.
            "qr_svg": mark_safe(otp_qr_svg(device)),  # noqa: S308
            "next": _next(request),
        },
        status=400 if form.errors else 200,
    )


def _recovery_codes_page(request: HttpRequest, codes: list[str]) -> HttpResponse:
    """The codes, once: only their answer to this POST holds them (never cached)."""
    response = render(
        request, "backoffice/otp_recovery_codes.html", {"codes": codes, "next": _next(request)}
    )
    add_never_cache_headers(response)
    return response


@login_required
def otp_recovery(request: HttpRequest, user_id: int | None = None) -> HttpResponse:
    """New recovery codes (the old ones stop working), from a session that passed its
    second factor: the member's own, or, for an admin (who may change the members' devices),
    those of a member who lost theirs. A GET only offers the button."""
    _staff(request)
    if not request.user.is_verified():  # type: ignore[union-attr]  # django-otp adds is_verified() to the user at run time
        return HttpResponseRedirect(
            f"{reverse('backoffice:otp-verify')}?next={quote(request.path, safe='/')}"
        )
    member = request.user
    if user_id is not None and user_id != request.user.pk:
        if not request.user.has_perm(RECOVERY_PERMISSION):
            raise PermissionDenied("Only an admin makes recovery codes for another member.")
        member = get_object_or_404(get_user_model(), pk=user_id, is_staff=True)
    if request.method == "POST":
        try:
            codes = otp_recovery_codes_regenerate(actor=request.user, user=member)  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
        except InvalidRequest as error:
            return render(
                request,
                "backoffice/otp_recovery.html",
                {"member": member, "error": error.message},
                status=400,
            )
        return _recovery_codes_page(request, codes)
    left = StaticToken.objects.filter(device__user=member).count()
    return render(request, "backoffice/otp_recovery.html", {"member": member, "left": left})


@login_required
def otp_verify(request: HttpRequest) -> HttpResponse:
    _staff(request)
    if not user_has_device(request.user):
        return HttpResponseRedirect(f"{reverse('backoffice:otp-setup')}?next={_next(request)}")
    form = VerifyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device = otp_device_verify(user=request.user, token=form.cleaned_data["token"])  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
        except OtpInvalid as error:
            form.add_error("token", error.message)
        else:
            otp_login(request, device)
            return HttpResponseRedirect(_next(request))
    return render(
        request,
        "backoffice/otp_verify.html",
        {"form": form, "next": _next(request)},
        status=400 if form.errors else 200,
    )
