"""The filters of the "My hands" page, read from its query string."""

from __future__ import annotations

from typing import Any

from django import forms


class HandFilterForm(forms.Form):
    """Table, days (UTC, both included) and result; every field may be left empty."""

    RESULTS = (("", "any result"), ("won", "won"), ("lost", "lost"))

    table = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    result = forms.ChoiceField(choices=RESULTS, required=False)

    def __init__(self, data: Any, *, tables: list[dict[str, Any]]) -> None:
        super().__init__(data)
        field = self.fields["table"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [("", "all tables"), *((t["id"], t["name"]) for t in tables)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("The first day is after the last day.")
        return data
