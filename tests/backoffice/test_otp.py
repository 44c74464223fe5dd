"""Two-factor login for staff: with STAFF_2FA_REQUIRED on (and, once a member enrolled, in
every mode), a password is not enough for the admin or the staff pages; a TOTP device is
enrolled with a right code, then asked for; recovery codes are shown once and work once."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import pytest
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from staff.models import StaffAction

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
    # The answer shows the recovery codes once, then leads on.
    assert done.status_code == 200
    assert 'href="/admin/" data-testid="otp-continue"' in done.content.decode()
    assert TOTPDevice.objects.get(pk=device.pk).confirmed
    assert client.get("/admin/").status_code == 200
    assert client.get("/staff/reports/").status_code == 200
    (line,) = StaffAction.objects.all()
    assert (line.actor, line.action, line.target) == (staff, "staff.2fa_enrol", f"user:{staff.pk}")
    assert line.data["recovery_codes"] == 10


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


def _enrol(client: Client, staff: Any, settings: Any) -> list[str]:
    """Enrols a device from the setup page; the recovery codes its answer shows."""
    settings.OTP_TOTP_THROTTLE_FACTOR = 0
    client.get("/staff/2fa/setup/")
    device = TOTPDevice.objects.get(user=staff, confirmed=False)
    done = client.post("/staff/2fa/setup/", {"token": _code(device), "next": "/staff/"})
    assert done.status_code == 200, done
    assert "no-store" in done["Cache-Control"]
    return re.findall(r'data-testid="otp-recovery-code">([^<]+)<', done.content.decode())


def test_enrolment_shows_ten_recovery_codes_once_and_each_opens_one_login(
    make_user, settings
) -> None:
    staff = make_user(role="risk")
    enrolling = Client()
    enrolling.force_login(staff)
    codes = _enrol(enrolling, staff, settings)
    assert len(codes) == len(set(codes)) == 10
    assert sorted(StaticToken.objects.filter(device__user=staff).values_list("token", flat=True)) == sorted(codes)  # fmt: skip
    # Shown once: no page shows them again.
    for path in ("/staff/2fa/setup/", "/staff/2fa/recovery/", "/staff/"):
        assert codes[0] not in enrolling.get(path).content.decode(), path
    # Another login, without the phone: a recovery code (as typed, in capitals) opens it.
    login = Client()
    login.force_login(staff)
    assert login.get("/staff/")["Location"].startswith("/staff/2fa/verify/")
    used = login.post("/staff/2fa/verify/", {"token": f" {codes[3].upper()} ", "next": "/staff/"})
    assert used.status_code == 302 and used["Location"] == "/staff/"
    assert login.get("/staff/").status_code == 200
    line = StaffAction.objects.get(action="staff.2fa_recovery_code_used")
    assert (line.actor, line.target, line.data) == (staff, f"user:{staff.pk}", {"codes_left": 9})
    # ...once: the same code is refused to the next session, another one still works (the
    # throttle after a wrong code is django-otp's, tested above for app codes).
    settings.OTP_STATIC_THROTTLE_FACTOR = 0
    again = Client()
    again.force_login(staff)
    assert again.post("/staff/2fa/verify/", {"token": codes[3]}).status_code == 400
    assert again.post("/staff/2fa/verify/", {"token": codes[4]}).status_code == 302


def test_a_staff_member_who_enrolled_needs_the_second_factor_with_the_setting_off(
    make_user, settings
) -> None:
    settings.STAFF_2FA_REQUIRED = False
    staff = make_user(role="admin")
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200  # no device: the password is enough
    _enrol(client, staff, settings)
    assert client.get("/admin/").status_code == 200  # this session passed the code
    later = Client()
    later.force_login(staff)
    for path in GUARDED:
        response = later.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith("/staff/2fa/verify/?next="), path
    refused = later.get("/api/v1/hands/1/?full=1")
    assert refused.status_code == 403 and refused.json()["code"] == "second_factor_required"


def test_new_recovery_codes_replace_the_old_ones_from_a_verified_session_only(
    make_user, settings
) -> None:
    staff = make_user(role="support")
    client = Client()
    client.force_login(staff)
    old = _enrol(client, staff, settings)
    page = client.get("/staff/2fa/recovery/").content.decode()
    assert "You have 10 unused recovery codes" in page
    regenerated = client.post("/staff/2fa/recovery/", {"next": "/staff/"})
    assert regenerated.status_code == 200 and "no-store" in regenerated["Cache-Control"]
    new = re.findall(r'data-testid="otp-recovery-code">([^<]+)<', regenerated.content.decode())
    assert len(new) == 10 and not set(new) & set(old)
    line = StaffAction.objects.get(action="staff.2fa_recovery_codes")
    assert (line.actor, line.target) == (staff, f"user:{staff.pk}")
    settings.OTP_STATIC_THROTTLE_FACTOR = 0
    other = Client()
    other.force_login(staff)
    assert other.post("/staff/2fa/verify/", {"token": old[1]}).status_code == 400
    # A session that has not passed its second factor cannot make codes for itself.
    assert other.post("/staff/2fa/recovery/")["Location"].startswith("/staff/2fa/verify/")
    assert other.post("/staff/2fa/verify/", {"token": new[0]}).status_code == 302
    assert StaticToken.objects.filter(device__user=staff).count() == 9


def test_an_admin_makes_recovery_codes_for_a_member_who_lost_theirs(make_user, settings) -> None:
    member = make_user(role="finance")
    member_client = Client()
    member_client.force_login(member)
    lost = _enrol(member_client, member, settings)
    admin = make_user(role="admin")
    admin_client = Client()
    admin_client.force_login(admin)
    _enrol(admin_client, admin, settings)
    # Another member without the admin's rights may not.
    support = make_user(role="support")
    support_client = Client()
    support_client.force_login(support)
    _enrol(support_client, support, settings)
    assert support_client.post(f"/staff/2fa/recovery/{member.pk}/").status_code == 403
    page = admin_client.get(f"/staff/2fa/recovery/{member.pk}/").content.decode()
    assert f"{member.username} has 10 unused recovery codes" in page
    made = admin_client.post(f"/staff/2fa/recovery/{member.pk}/")
    codes = re.findall(r'data-testid="otp-recovery-code">([^<]+)<', made.content.decode())
    assert len(codes) == 10
    line = StaffAction.objects.get(action="staff.2fa_recovery_codes")
    assert (line.actor, line.target) == (admin, f"user:{member.pk}")
    settings.OTP_STATIC_THROTTLE_FACTOR = 0
    login = Client()
    login.force_login(member)
    assert login.post("/staff/2fa/verify/", {"token": lost[0]}).status_code == 400
    assert login.post("/staff/2fa/verify/", {"token": codes[0]}).status_code == 302
    # The admin pages never show a code again.
    admin_list = admin_client.get("/admin/otp_static/staticdevice/").content.decode()
    detail = admin_client.get(
        f"/admin/otp_static/staticdevice/{member.staticdevice_set.get().pk}/change/"
    )
    assert not [c for c in codes[1:] if c in admin_list + detail.content.decode()]
