"""Admin columns of money: minor units shown in the row's currency's units ("€50.00"), as
on the players' pages, by the one formatter (``wallet.amounts.money_format``)."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from django.contrib import admin

from wallet.amounts import money_format


def money_column(
    field: str, *, currency: str = "currency", description: str | None = None
) -> Callable[[Any], str]:
    """A ``list_display`` (or ``readonly_fields``) entry showing ``field`` of a row in the
    currency at ``currency`` (a dotted path: ``"table.currency"``); None shows as "-"."""
    currency_of = attrgetter(currency)

    @admin.display(description=description or field.replace("_", " "), ordering=field)
    def shown(obj: Any) -> str:
        value = getattr(obj, field)
        return "-" if value is None else money_format(value, currency_of(obj))

    shown.__name__ = f"{field}_shown"
    return shown
