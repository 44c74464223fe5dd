"""``{% load money %}``: amounts in minor units shown in the currency's units.

``{{ amount|money:currency }}`` gives "1,234.56 EUR" (``money_signed``: "+1,234.56 EUR" for
a gain); ``units`` the number alone, for a table with a currency column (``units_signed``:
"+1,234.56").
``{% money_decimals %}`` is the JSON of each currency's decimals, for a page's script.
"""

from __future__ import annotations

import json

from django import template

from wallet.amounts import currency_decimals_all, money_format

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


@register.simple_tag
def money_decimals() -> str:
    return json.dumps(currency_decimals_all(), separators=(",", ":"))
