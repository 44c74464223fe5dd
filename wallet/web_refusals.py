"""Refusals said on the player's pages in the currency's units.

A service's typed error speaks minor units: its message and ``extra`` are the API's, for
programs. A page says the same refusal to a person, from the error's ``code`` and the
amounts its ``extra`` carries, through the one mapping below; any other code is said in
the service's own words (they carry no amount).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.errors import DomainError
from wallet.amounts import money_format
from wallet.models import DepositLimit


def _m(extra: dict[str, Any], field: str) -> str:
    return money_format(extra[field], extra["currency"])


_SAID: dict[str, Callable[[dict[str, Any]], str]] = {
    "deposit_limit_reached": lambda x: (
        f"Your deposit limit is {_m(x, 'limit')} per {DepositLimit.Period(x['period']).label}; "
        f"{_m(x, 'used')} deposited in that time, {_m(x, 'remaining')} left."
    ),
    "deposit_daily_limit": lambda x: (
        f"Deposits are limited to {_m(x, 'daily_max')} per 24 hours; "
        f"{_m(x, 'deposited_today')} already deposited."
    ),
    "deposit_above_maximum": lambda x: f"A deposit is at most {_m(x, 'maximum')}.",
    "withdrawal_daily_limit": lambda x: (
        f"Withdrawals are limited to {_m(x, 'daily_max')} per 24 hours; "
        f"{_m(x, 'requested_today')} already requested."
    ),
    "withdrawal_below_minimum": lambda x: f"The minimum withdrawal is {_m(x, 'minimum')}.",
    "kyc_required": lambda x: (
        f"Withdrawals above {_m(x, 'threshold')} need a verified identity (yours is "
        f"{x['status']}). Ask for a review on your wallet page."
    ),
    "insufficient_funds": lambda x: (
        f"Insufficient funds: {_m(x, 'available')} available, {_m(x, 'required')} needed."
    ),
    "reload_not_needed": lambda x: (
        f"You hold {_m(x, 'balance')}; a reload tops up to {_m(x, 'target')} only."
    ),
}


def refusal_said(error: DomainError) -> str:
    """What a page tells the player about ``error``: in the currency's units."""
    said = _SAID.get(error.code)
    return error.message if said is None else said(error.extra)
