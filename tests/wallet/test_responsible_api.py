"""REST of responsible gaming: each endpoint, and bad input answered by a typed 400 with
nothing written."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.wallet import post
from wallet.models import DepositLimit, DepositLimitChange, Restriction
from wallet.restrictions import restriction_impose

pytestmark = pytest.mark.django_db

LIMITS = "/api/v1/account/limits/"
TIMEOUT = "/api/v1/account/timeout/"
EXCLUSION = "/api/v1/account/self-exclusion/"
RESTRICTIONS = "/api/v1/account/restrictions/"


def _row(body, currency, period):
    return next(r for r in body["limits"] if (r["currency"], r["period"]) == (currency, period))


def test_limits_list_every_real_currency_and_period_with_use_and_what_is_left(player):
    body = player.get(LIMITS).json()
    assert {(r["currency"], r["period"]) for r in body["limits"]} == {
        (c, p) for c in ("EUR", "USD") for p in ("day", "week", "month")
    }
    assert _row(body, "EUR", "day") == {"currency": "EUR", "period": "day", "limit": None,
                                        "pending": None, "used": 10_000, "remaining": None}  # fmt: skip


def test_setting_a_limit_says_it_holds_now_and_a_raise_says_from_when(player, settings):
    settings.WALLET_LIMIT_RAISE_DELAY_HOURS = 24
    lowered = post(player, LIMITS, {"currency": "EUR", "period": "week", "amount": 15_000})
    assert lowered.status_code == 200
    body = lowered.json()
    assert body["change"]["immediate"] is True
    assert _row(body, "EUR", "week") == {"currency": "EUR", "period": "week", "limit": 15_000,
                                         "pending": None, "used": 10_000, "remaining": 5_000}  # fmt: skip

    raised = post(player, LIMITS, {"currency": "EUR", "period": "week", "amount": 30_000}).json()
    assert raised["change"]["immediate"] is False
    week = _row(raised, "EUR", "week")
    assert week["limit"] == 15_000
    assert week["pending"]["amount"] == 30_000
    assert week["pending"]["from"] == raised["change"]["effective_from"]
    assert player.get(LIMITS).json() == {"limits": raised["limits"]}

    removed = post(player, LIMITS, {"currency": "EUR", "period": "week", "amount": None}).json()
    assert _row(removed, "EUR", "week")["pending"]["amount"] is None


def test_the_same_key_replays_the_limit_answer(player):
    body = {"currency": "EUR", "period": "day", "amount": 5_000}
    first = post(player, LIMITS, body, key="same")
    again = post(player, LIMITS, body, key="same")
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert DepositLimitChange.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"currency": "EUR", "period": "year", "amount": 100}, "invalid_period"),
        ({"currency": "EUR", "amount": 100}, "invalid_period"),
        ({"currency": "EUR", "period": "day"}, "invalid_amount"),  # null is said, not implied
        ({"currency": "EUR", "period": "day", "amount": -5}, "invalid_amount"),
        ({"currency": "EUR", "period": "day", "amount": 1.5}, "invalid_amount"),
        ({"currency": "EUR", "period": "day", "amount": "100"}, "invalid_amount"),
        ({"currency": "XYZ", "period": "day", "amount": 100}, "unknown_currency"),
        ({"currency": "CHIPS", "period": "day", "amount": 100}, "currency_not_allowed"),
        ({"currency": "EUR", "period": "day", "amount": 100, "extra": 1}, "invalid"),
    ],
)
def test_bad_limit_input_is_a_typed_400_and_nothing_is_written(player, body, code):
    response = post(player, LIMITS, body)
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert not DepositLimit.objects.exists() and not DepositLimitChange.objects.exists()


def test_a_post_without_an_idempotency_key_is_refused(player):
    for url, body in ((LIMITS, {"currency": "EUR", "period": "day", "amount": 1}),
                      (TIMEOUT, {"hours": 24}), (EXCLUSION, {"months": 6})):  # fmt: skip
        response = post(player, url, body, key=None)
        assert response.status_code == 400
        assert response.json()["code"] == "idempotency_key_required"
    assert not DepositLimit.objects.exists() and not Restriction.objects.exists()


def test_a_time_out_is_started_listed_and_refuses_deposits(player):
    before = timezone.now()
    started = post(player, TIMEOUT, {"hours": 48})
    assert started.status_code == 201
    (row,) = started.json()["restrictions"]
    assert row["kind"] == "time_out" and row["lifted_by_staff_only"] is False
    ends_at = timezone.datetime.fromisoformat(row["ends_at"])
    assert before + timedelta(hours=48) <= ends_at <= timezone.now() + timedelta(hours=48)
    assert player.get(RESTRICTIONS).json() == started.json()
    refused = post(player, "/api/v1/wallet/deposits/", {"amount": 100, "currency": "EUR"})
    assert refused.status_code == 403 and refused.json()["code"] == "account_restricted"

    shorter = post(player, TIMEOUT, {"hours": 24})
    assert shorter.status_code == 409 and shorter.json()["code"] == "restriction_in_force"


def test_a_self_exclusion_is_started_and_says_only_staff_lift_it(player):
    started = post(player, EXCLUSION, {"months": 6})
    assert started.status_code == 201
    (row,) = started.json()["restrictions"]
    assert row["kind"] == "self_exclusion" and row["lifted_by_staff_only"] is True


@pytest.mark.parametrize(
    ("url", "body"),
    [
        (TIMEOUT, {"hours": 23}),
        (TIMEOUT, {"hours": 1009}),
        (TIMEOUT, {"hours": "48"}),
        (TIMEOUT, {"hours": 48.5}),
        (TIMEOUT, {}),
        (EXCLUSION, {"months": 5}),
        (EXCLUSION, {"months": "12"}),
        (EXCLUSION, {"months": None}),
    ],
)
def test_bad_durations_are_a_typed_400_and_nothing_is_written(player, url, body):
    response = post(player, url, body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_duration"
    assert not Restriction.objects.exists()


def test_a_fraud_freeze_is_never_shown_to_the_player(player):
    restriction_impose(user_id=player.user.pk, kind="fraud_freeze", source="case:9",
                       reason="confirmed dumping", by=None)  # fmt: skip
    assert player.get(RESTRICTIONS).json() == {"restrictions": []}


def test_the_endpoints_need_a_login(api_client):
    assert api_client.get(LIMITS).status_code in (401, 403)
    assert api_client.get(RESTRICTIONS).status_code in (401, 403)
