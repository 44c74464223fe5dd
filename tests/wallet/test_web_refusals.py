"""The pages' words for the services' refusals (``wallet.web_refusals``)."""

from __future__ import annotations

from core.errors import DomainError
from ledger.errors import InsufficientFunds
from wallet.errors import DepositLimitReached, RestrictionInForce
from wallet.web_refusals import refusal_said


def test_a_refusal_with_amounts_is_said_in_the_currencys_units_not_the_apis_minor_units():
    error = DepositLimitReached(
        "Your deposit limit is 500000 USD minor units per 7 days; 450050 deposited in that "
        "time, 49950 left.",
        currency="USD", period="week", limit=500_000, used=450_050, remaining=49_950,
    )  # fmt: skip
    assert refusal_said(error) == (
        "Your deposit limit is $5,000.00 per 7 days; $4,500.50 deposited in that time, "
        "$499.50 left."
    )
    assert "minor units" in error.message  # the API's words are left as they were


def test_play_money_is_said_whole():
    error = InsufficientFunds("x", currency="CHIPS", available=1_500, required=20_000)
    assert refusal_said(error) == "Insufficient funds: 1,500 CHIPS available, 20,000 CHIPS needed."


def test_a_refusal_without_amounts_is_said_in_the_services_words():
    error = RestrictionInForce("Your time-out already runs until 2026-12-01 10:00 UTC.")
    assert refusal_said(error) == error.message
    assert refusal_said(DomainError("Something else.", code="other")) == "Something else."
