"""Forms of the player's account pages: they parse input; the services decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from wallet.amounts import PLAY_MONEY, money_parse


class SignupForm(forms.Form):
    """Username and a password typed twice; the registration service validates both
    (Django's username and password validators) and reports in its own words."""

    username = forms.CharField(max_length=150, strip=False)
    password = forms.CharField(max_length=128, strip=False, widget=forms.PasswordInput)
    confirm = forms.CharField(max_length=128, strip=False, widget=forms.PasswordInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password") != data.get("confirm"):
            self.add_error("confirm", "The two passwords differ.")
        return data


class KeyedForm(forms.Form):
    """A form that moves money carries the key it was rendered with: posting it twice
    (a double click, a refresh) reaches the service with the same key, which answers
    with what the first post did."""

    key = forms.CharField(max_length=64, widget=forms.HiddenInput)


class AmountForm(forms.Form):
    """A ``currency`` and an ``amount`` typed in that currency's units ("25.50"): once
    clean, ``amount`` is in minor units (2550), or None when left empty where it may be.
    Play money is granted and reloaded, never deposited, withdrawn or limited: not offered.
    """

    currency = forms.ChoiceField(choices=())
    amount = forms.CharField(
        max_length=32, help_text="In the currency's units, e.g. 25.50 (not in cents)."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["currency"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(c, c) for c in settings.WALLET_CURRENCIES if c != PLAY_MONEY]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        typed, currency = data.get("amount"), data.get("currency")
        if not typed:
            data["amount"] = None
        elif currency:
            try:
                data["amount"] = money_parse(typed, currency)
            except forms.ValidationError as error:
                self.add_error("amount", error)
        return data


class MoneyForm(KeyedForm, AmountForm):
    """A deposit or a withdrawal."""


class KycSubmitForm(forms.Form):
    note = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
