"""Forms of the player's account pages: they parse input; the services decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings


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


class MoneyForm(KeyedForm):
    amount = forms.IntegerField(min_value=1, max_value=2**63 - 1, label="Amount (minor units)")
    currency = forms.ChoiceField(choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["currency"]
        assert isinstance(field, forms.ChoiceField)
        # Play money is granted and reloaded, never deposited or withdrawn.
        field.choices = [(c, c) for c in settings.WALLET_CURRENCIES if c != "CHIPS"]


class KycSubmitForm(forms.Form):
    note = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
