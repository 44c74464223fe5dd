"""Money as people read and type it: in the currency's units, never in minor units.

The ledger, the services and the API speak integer minor units; a page speaks the
currency's units ("€25.50", "1,500 CHIPS"). This module is the one place that converts,
both ways: ``money_format`` for what a page shows (and its template filters in
``wallet/templatetags/money.py``), ``money_parse`` for what a player types. The pages'
scripts do the same with ``wallet/static/wallet/money.js``, given ``currency_spec``; both
are pinned to the same cases (``tests/support/money_cases.json``).
"""

from __future__ import annotations

import re
from typing import Final, TypedDict

from django.conf import settings
from django.core.exceptions import ValidationError

from ledger.posting import MAX_AMOUNT

#: Play money: counted one chip at a time (its minor unit is its unit).
PLAY_MONEY: Final = "CHIPS"
#: Digits after the point of a real currency's unit: the ledger keeps them in cents.
REAL_DECIMALS: Final = 2
#: The sign written before an amount of the currency ("€19.90"); a currency without one is
#: written with its code after the amount ("19.90 CHF").
SYMBOLS: Final = {"EUR": "€", "USD": "$", "GBP": "£"}

# Digits only (ASCII: no other script's digits), an optional point and decimals.
_TYPED = re.compile(r"(?=\.?[0-9])([0-9]*)(?:\.([0-9]*))?", re.ASCII)


class CurrencySpec(TypedDict):
    """What a page's script needs to show and read amounts of one currency."""

    code: str
    decimals: int
    symbol: str


def currency_decimals(currency: str) -> int:
    """How many digits follow the point in ``currency``'s unit (its minor unit's power)."""
    return 0 if currency == PLAY_MONEY else REAL_DECIMALS


def currency_spec(currency: str) -> CurrencySpec:
    """``{"code": "EUR", "decimals": 2, "symbol": "€"}``: the currency as ``money.js`` takes it."""
    return {
        "code": currency,
        "decimals": currency_decimals(currency),
        "symbol": SYMBOLS.get(currency, ""),
    }


def _scale(decimals: int) -> int:
    """Minor units in one unit: ``10**decimals`` (an int: ``decimals`` is never negative)."""
    return int(10**decimals)


def currency_specs_all() -> dict[str, CurrencySpec]:
    """``currency_spec`` of every enabled currency (for the pages' scripts)."""
    return {c: currency_spec(c) for c in settings.WALLET_CURRENCIES}


def money_format(
    amount: int, currency: str, *, code: bool = True, plus: bool = False, chips_bare: bool = False
) -> str:
    """Minor units as people read them: thousands separated, play chips whole, money with
    its decimals and its symbol ("€19.90", or its code after: "19.90 CHF"). ``code=False``
    gives the number alone (a column headed by its currency), ``chips_bare`` leaves the
    unit off play chips only (at a table, where chips go without saying), ``plus`` puts a
    "+" before a gain.

    >>> money_format(123456, "EUR"), money_format(-5, "USD"), money_format(1500, "CHIPS")
    ('€1,234.56', '-$0.05', '1,500 CHIPS')
    >>> money_format(2550, "EUR", code=False, plus=True), money_format(1990, "CHIPS", chips_bare=True)
    ('+25.50', '1,990')
    """
    decimals = currency_decimals(currency)
    sign = "-" if amount < 0 else "+" if plus and amount > 0 else ""
    whole, fraction = divmod(abs(amount), _scale(decimals))
    number = f"{whole:,}" + (f".{fraction:0{decimals}d}" if decimals else "")
    symbol = SYMBOLS.get(currency, "")
    if not code or (chips_bare and currency == PLAY_MONEY):
        return f"{sign}{number}"
    return f"{sign}{symbol}{number}" if symbol else f"{sign}{number} {currency}"


def money_parse(text: str, currency: str) -> int:
    """An amount a player typed in ``currency``'s units ("25", "25.5", "25.50"; play
    chips whole) as minor units (2550). Refuses, with a ``ValidationError`` saying what
    to type instead: junk, a negative amount, zero, more decimals than the currency has,
    and an amount beyond what the ledger holds.

    >>> money_parse(" 25.5 ", "EUR"), money_parse("1500", "CHIPS")
    (2550, 1500)
    """
    decimals = currency_decimals(currency)
    example = "1500" if decimals == 0 else "25 or 25.50"
    typed = text.strip()
    match = _TYPED.fullmatch(typed.removeprefix("-"))
    if match is None:
        raise ValidationError(
            f"Enter an amount in {currency} such as {example} (digits, and a point before "
            "the decimals).",
            code="amount_not_a_number",
        )
    whole, fraction = match.group(1), match.group(2) or ""
    if len(fraction) > decimals:
        said = (
            f"{currency} are counted whole"
            if decimals == 0
            else (f"{currency} amounts have at most {decimals} decimals")
        )
        raise ValidationError(f"{said}: {typed} is not a valid amount.", code="amount_decimals")
    # Counted before int(): Python refuses to read an integer of thousands of digits.
    too_large = len(whole.lstrip("0")) > len(str(MAX_AMOUNT))
    minor = (
        0
        if too_large
        else (int(whole or "0") * _scale(decimals) + int(fraction.ljust(decimals, "0") or "0"))
    )
    if typed.startswith("-") or (minor == 0 and not too_large):
        raise ValidationError("Enter an amount above zero.", code="amount_not_positive")
    if too_large or minor > MAX_AMOUNT:
        raise ValidationError(
            f"{typed[:24]}{'...' if len(typed) > 24 else ''} {currency} is more than can be held.",
            code="amount_too_large",
        )
    return minor
