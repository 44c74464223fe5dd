"""Two-factor login for staff: with STAFF_2FA_REQUIRED on, a password is not enough for the
admin or the staff pages; a TOTP device is enrolled with a right code, then asked for."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.models import StaffAction

pytestmark = pytest.mark.django_db

GUARDED = [
    "/admin/",
    "/admin/wallet/withdrawal/",
    "/staff/",
    "/staff/reports/",
    "/staff/players/1/",
    # Outside the back office a staff session still has staff rights (every card).
    "/",
    "/tables/1/?full=1",
    "/hands/1/?full=1",
]


@pytest.fixture(autouse=True)
def _two_factors_on(settings: Any) -> None:
    settings.STAFF_2FA_REQUIRED = True


def _code(device: TOTPDevice, drift: int = 0) -> str:
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits, drift=drift):06d}"


def test_without_a_device_staff_are_sent_to_enrol_for_every_staff_page(make_user) -> None:
    client = Client()
    client.force_login(make_user(role="admin"))
    for path in GUARDED:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith("/staff/2fa/setup/?next="), path
        assert unquote(response["Location"].split("next=", 1)[1]) == path


def test_a_staff_session_without_its_second_factor_is_refused_the_api(make_user) -> None:
    client = Client()
    client.force_login(make_user(role="support"))
    response = client.get("/api/v1/hands/1/?full=1")
    assert response.status_code == 403
    assert response.json()["code"] == "second_factor_required"
    # The way in stays open (the login page sends a signed-in member on, not to the gate).
    assert client.get("/login/")["Location"] == "/"


def test_enrolment_refuses_a_wrong_code_and_opens_the_admin_with_the_right_one(
    make_user, settings
) -> None:
    staff = make_user(role="support")
    client = Client()
    client.force_login(staff)
    page = client.get("/staff/2fa/setup/?next=/admin/")
    assert page.status_code == 200
    html = page.content.decode()
    assert (
        "<svg" in html
        and "<path" in html
        and "style=" not in html.split("<svg", 1)[1].split("</svg>")[0]
    )
    device = TOTPDevice.objects.get(user=staff, confirmed=False)
    assert device.config_url.split("secret=")[1].split("&")[0] in html  # the secret, to type in
    right = _code(device)
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    refused = client.post("/staff/2fa/setup/", {"token": wrong, "next": "/admin/"})
    assert refused.status_code == 400 and 'data-testid="otp-error"' in refused.content.decode()
    assert not TOTPDevice.objects.filter(user=staff, confirmed=True).exists()
    assert client.get("/admin/").status_code == 302
    # Right after a wrong code even the right one waits (django-otp's throttle; an hour
    # here, so a slow machine cannot outwait its default of one second)...
    settings.OTP_TOTP_THROTTLE_FACTOR = 3600
    throttled = client.post("/staff/2fa/setup/", {"token": right, "next": "/admin/"})
    assert throttled.status_code == 400 and "Too many wrong codes" in throttled.content.decode()
    settings.OTP_TOTP_THROTTLE_FACTOR = 0  # ...here for no time at all
    done = client.post("/staff/2fa/setup/", {"token": right, "next": "/admin/"})
    assert done.status_code == 302 and done["Location"] == "/admin/"
    assert TOTPDevice.objects.get(pk=device.pk).confirmed
    assert client.get("/admin/").status_code == 200
    assert client.get("/staff/reports/").status_code == 200
    (line,) = StaffAction.objects.all()
    assert (line.actor, line.action, line.target) == (staff, "staff.2fa_enrol", f"user:{staff.pk}")


def test_a_staff_member_with_a_device_types_its_code_at_each_login(make_user, settings) -> None:
    staff = make_user(role="finance")
    device = TOTPDevice.objects.create(user=staff, name="phone", confirmed=True)
    client = Client()
    client.force_login(staff)
    response = client.get("/admin/wallet/withdrawal/")
    assert response["Location"].startswith("/staff/2fa/verify/?next=/admin/wallet/withdrawal/")
    # The password alone does not let one enrol a device of one's own.
    assert client.get("/staff/2fa/setup/")["Location"].startswith("/staff/2fa/verify/")
    settings.OTP_TOTP_THROTTLE_FACTOR = 0
    wrong = f"{(int(_code(device)) + 1) % 1_000_000:06d}"
    assert client.post("/staff/2fa/verify/", {"token": wrong}).status_code == 400
    assert client.get("/admin/").status_code == 302
    ok = client.post(
        "/staff/2fa/verify/", {"token": _code(device), "next": "/admin/wallet/withdrawal/"}
    )
    assert ok.status_code == 302 and ok["Location"] == "/admin/wallet/withdrawal/"
    assert client.get("/admin/wallet/withdrawal/").status_code == 200
    # A code is good once: a new session cannot reuse it.
    again = Client()
    again.force_login(staff)
    assert again.post("/staff/2fa/verify/", {"token": _code(device)}).status_code == 400


def test_with_the_setting_off_a_password_is_enough(make_user, settings) -> None:
    settings.STAFF_2FA_REQUIRED = False
    client = Client()
    client.force_login(make_user(role="admin"))
    assert client.get("/admin/").status_code == 200


def test_players_are_refused_the_two_factor_pages(make_user) -> None:
    client = Client()
    client.force_login(make_user())
    assert client.get("/staff/2fa/setup/").status_code == 403
    assert client.get("/staff/2fa/verify/").status_code == 403
    assert not TOTPDevice.objects.exists()
