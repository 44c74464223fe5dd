"""``{% load money %}``: amounts in minor units shown in the currency's units.

``{{ amount|money:currency }}`` gives "1,234.56 EUR" (``money_signed``: "+1,234.56 EUR" for
a gain); ``units`` the number alone, for a table with a currency column (``units_signed``:
"+1,234.56"); ``amount`` as at a poker table: money with its symbol, play chips bare
(``amount_signed``: "+€0.30", "+150");
``typed`` as a person types it in an amount box ("1234.56", "1500").
``{% money_currencies %}`` is the JSON of each currency's ``currency_spec``, for a page's
script (``wallet/static/wallet/money.js``).
"""

from __future__ import annotations

import json

from django import template

from wallet.amounts import currency_specs_all, money_format

register = template.Library()


@register.filter
def money(amount: int, currency: str) -> str:
    return money_format(amount, currency)


@register.filter
def money_signed(amount: int, currency: str) -> str:
    return money_format(amount, currency, plus=True)


@register.filter
def units(amount: int, currency: str) -> str:
    return money_format(amount, currency, code=False)


@register.filter
def units_signed(amount: int, currency: str) -> str:
    return money_format(amount, currency, code=False, plus=True)


@register.filter
def amount(amount: int, currency: str) -> str:
    return money_format(amount, currency, chips_bare=True)


@register.filter
def amount_signed(amount: int, currency: str) -> str:
    return money_format(amount, currency, chips_bare=True, plus=True)


@register.filter
def typed(amount: int, currency: str) -> str:
    return money_format(amount, currency, code=False).replace(",", "")


@register.simple_tag
def money_currencies() -> str:
    return json.dumps(currency_specs_all(), separators=(",", ":"))
