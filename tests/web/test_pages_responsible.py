"""The responsible-gaming pages through Django's test client: state shown, forms posted
to the services, refusals shown in words."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from wallet.models import DepositLimit, Restriction
from wallet.responsible import timeout_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(client, make_user):
    user = make_user()
    client.force_login(user)
    client.user = user
    return client


def test_the_pages_need_a_login(client):
    for name in ("web-account-limits", "web-account-timeout"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_limit_set_on_the_page_holds_now_and_a_raise_shows_when(web, settings):
    settings.WALLET_LIMIT_RAISE_DELAY_HOURS = 24
    url = reverse("web-account-limits")
    assert url == "/account/limits/"
    done = web.post(url, {"currency": "EUR", "period": "day", "amount": "50.00"}, follow=True)
    text = done.content.decode()
    assert "a limit of €50.00 per 24 hours holds now" in text
    assert DepositLimit.objects.get(user=web.user, currency="EUR", period="day").amount == 5_000

    raised = web.post(url, {"currency": "EUR", "period": "day", "amount": "80"}, follow=True)
    text = raised.content.decode()
    pending_from = DepositLimit.objects.get(user=web.user, period="day").pending_from
    assert f"holds from {pending_from:%Y-%m-%d %H:%M} UTC" in text
    assert f"€80.00 from {pending_from:%Y-%m-%d %H:%M} UTC" in text


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"currency": "EUR", "period": "day", "amount": "-1"}, "Enter an amount above zero."),
        ({"currency": "EUR", "period": "day", "amount": "ten"}, "Enter an amount in EUR such as"),
        ({"currency": "EUR", "period": "day", "amount": "5.001"}, "at most 2 decimals"),
        ({"currency": "EUR", "period": "year", "amount": "10"}, "Select a valid choice"),
        ({"currency": "CHIPS", "period": "day", "amount": "10"}, "Select a valid choice"),
    ],
)
def test_bad_limit_input_is_shown_in_words_and_nothing_is_written(web, body, said):
    response = web.post(reverse("web-account-limits"), body)
    assert response.status_code == 200
    assert said in response.content.decode()
    assert not DepositLimit.objects.exists()


def test_a_bad_limit_amount_is_said_with_the_fields_name(web):
    response = web.post(
        reverse("web-account-limits"), {"currency": "EUR", "period": "day", "amount": "0"}
    )
    assert "<div>Amount: Enter an amount above zero.</div>" in response.content.decode()


def test_a_time_out_taken_on_the_page_is_shown_with_its_end(web):
    url = reverse("web-account-timeout")
    assert url == "/account/timeout/"
    page = web.get(url).content.decode()
    assert "No time-out or self-exclusion is running." in page
    request_id = str(uuid.uuid4())
    body = {"kind": "time_out", "hours": "24", "request_id": request_id}
    shown = web.post(url, body, follow=True).content.decode()
    restriction = Restriction.objects.get(user=web.user)
    assert f"on a time-out until {restriction.ends_at:%Y-%m-%d %H:%M} UTC" in shown
    web.post(url, body)  # the same form submitted twice: one time-out
    assert Restriction.objects.filter(user=web.user).count() == 1


def test_a_shorter_time_out_is_refused_in_words(web):
    timeout_start(user=web.user, hours=72, restriction_id=uuid.uuid4())
    response = web.post(
        reverse("web-account-timeout"),
        {"kind": "time_out", "hours": "24", "request_id": str(uuid.uuid4())},
    )
    assert "it can be extended, never shortened" in response.content.decode()
    assert Restriction.objects.filter(user=web.user).count() == 1


def test_a_self_exclusion_needs_the_confirmation(web):
    url = reverse("web-account-timeout")
    body = {"kind": "self_exclusion", "months": "6", "request_id": str(uuid.uuid4())}
    refused = web.post(url, body)
    assert "Please confirm that you understand" in refused.content.decode()
    assert not Restriction.objects.exists()
    shown = web.post(url, {**body, "confirm": "on"}, follow=True).content.decode()
    assert "excluded yourself until at least" in shown
    assert Restriction.objects.get(user=web.user).kind == "self_exclusion"
