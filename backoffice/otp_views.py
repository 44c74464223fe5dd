"""The two-factor pages: enrol a TOTP device, then type its code at each login."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django_otp import login as otp_login
from django_otp import user_has_device

from backoffice.otp import (
    OtpInvalid,
    otp_device_confirm,
    otp_device_pending,
    otp_device_verify,
    otp_qr_svg,
    otp_secret,
)


class TokenForm(forms.Form):
    token = forms.CharField(max_length=16, label="Code from your app")


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
    if user_has_device(user) and not user.is_verified():  # type: ignore[union-attr]
        # A new device only from a session that passed the existing one.
        return HttpResponseRedirect(f"{reverse('backoffice:otp-verify')}?next={_next(request)}")
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device = otp_device_confirm(user=user, token=form.cleaned_data["token"])  # type: ignore[arg-type]
        except OtpInvalid as error:
            form.add_error("token", error.message)
        else:
            otp_login(request, device)
            return HttpResponseRedirect(_next(request))
    device = otp_device_pending(user=user)  # type: ignore[arg-type]
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


@login_required
def otp_verify(request: HttpRequest) -> HttpResponse:
    _staff(request)
    if not user_has_device(request.user):
        return HttpResponseRedirect(f"{reverse('backoffice:otp-setup')}?next={_next(request)}")
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device = otp_device_verify(user=request.user, token=form.cleaned_data["token"])  # type: ignore[arg-type]
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
