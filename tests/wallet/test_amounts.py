"""Money as people read and type it (``wallet.amounts``): the one formatter and the one
parser of the pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.template import Context, Template

from ledger.posting import MAX_AMOUNT
from wallet.amounts import currency_spec, currency_specs_all, money_format, money_parse

#: The cases ``wallet/static/wallet/money.js`` must give too (tests/web/test_browser_money.py).
CASES = json.loads((Path(__file__).parents[1] / "support" / "money_cases.json").read_text())


@pytest.mark.parametrize("currency", sorted(CASES["currencies"]))
def test_the_shared_cases_state_each_currency_as_the_formatter_knows_it(currency):
    assert currency_spec(currency) == CASES["currencies"][currency]


@pytest.mark.parametrize("case", CASES["format"], ids=lambda c: f"{c['amount']}-{c['currency']}")
def test_money_format_shows_the_currencys_units_with_its_symbol(case):
    assert money_format(case["amount"], case["currency"], **case["options"]) == case["shown"]


@pytest.mark.parametrize("case", CASES["parse"], ids=lambda c: f"{c['typed']!r}-{c['currency']}")
def test_money_parse_gives_the_shared_cases_minor_units_or_refusal(case):
    if "error" in case:
        with pytest.raises(ValidationError) as refused:
            money_parse(case["typed"], case["currency"])
        assert refused.value.code == case["error"]
    else:
        assert money_parse(case["typed"], case["currency"]) == case["minor"]


@pytest.mark.parametrize(
    ("typed", "currency", "minor"),
    [
        ("25", "EUR", 2_500),
        ("25.5", "EUR", 2_550),
        ("25.50", "EUR", 2_550),
        (" 25.50 ", "EUR", 2_550),
        ("0.01", "USD", 1),
        (".5", "EUR", 50),
        ("25.", "EUR", 2_500),
        ("007", "EUR", 700),
        ("1500", "CHIPS", 1_500),
        (str(MAX_AMOUNT // 100) + ".07", "EUR", MAX_AMOUNT),
    ],
)
def test_money_parse_reads_the_currencys_units_as_minor_units(typed, currency, minor):
    assert money_parse(typed, currency) == minor


@pytest.mark.parametrize(
    ("typed", "currency", "code"),
    [
        ("25.505", "EUR", "amount_decimals"),
        ("25.500", "EUR", "amount_decimals"),
        ("1500.5", "CHIPS", "amount_decimals"),
        ("1500.0", "CHIPS", "amount_decimals"),
        ("-5", "EUR", "amount_not_positive"),
        ("-0.01", "EUR", "amount_not_positive"),
        ("0", "EUR", "amount_not_positive"),
        ("0.00", "EUR", "amount_not_positive"),
        ("0", "CHIPS", "amount_not_positive"),
        ("", "EUR", "amount_not_a_number"),
        (".", "EUR", "amount_not_a_number"),
        ("ten", "EUR", "amount_not_a_number"),
        ("25,50", "EUR", "amount_not_a_number"),
        ("1,000", "EUR", "amount_not_a_number"),
        ("1e3", "EUR", "amount_not_a_number"),
        ("+5", "EUR", "amount_not_a_number"),
        ("--5", "EUR", "amount_not_a_number"),
        ("5 EUR", "EUR", "amount_not_a_number"),
        ("\uff12\uff15", "EUR", "amount_not_a_number"),  # fullwidth digits: not ASCII
        ("NaN", "EUR", "amount_not_a_number"),
        (str(MAX_AMOUNT // 100 + 1), "EUR", "amount_too_large"),
        (str(MAX_AMOUNT + 1), "CHIPS", "amount_too_large"),
        ("9" * 5_000, "EUR", "amount_too_large"),
        ("-" + "9" * 5_000, "EUR", "amount_not_positive"),
    ],
)
def test_money_parse_refuses_what_is_not_an_amount_of_the_currency(typed, currency, code):
    with pytest.raises(ValidationError) as refused:
        money_parse(typed, currency)
    assert refused.value.code == code


def test_money_parse_says_what_to_type_instead():
    with pytest.raises(ValidationError) as refused:
        money_parse("25.505", "EUR")
    assert refused.value.messages == [
        "EUR amounts have at most 2 decimals: 25.505 is not a valid amount."
    ]
    with pytest.raises(ValidationError) as refused:
        money_parse("10.5", "CHIPS")
    assert refused.value.messages == ["CHIPS are counted whole: 10.5 is not a valid amount."]


def test_the_template_filters_use_the_one_formatter(settings):
    settings.WALLET_CURRENCIES = ["CHIPS", "EUR"]
    rendered = Template(
        "{% load money %}{{ a|money:'EUR' }}|{{ a|money_signed:'EUR' }}|{{ a|units:'EUR' }}|"
        "{{ b|units_signed:'CHIPS' }}|{{ b|amount:'CHIPS' }}|{{ a|amount:'EUR' }}|{% money_currencies %}"
    ).render(Context({"a": 250_000, "b": -1_500}))
    assert (
        rendered
        == "€2,500.00|+€2,500.00|2,500.00|-1,500|-1,500|€2,500.00|{&quot;CHIPS&quot;:{&quot;code&quot;:"
        "&quot;CHIPS&quot;,&quot;decimals&quot;:0,&quot;symbol&quot;:&quot;&quot;},&quot;EUR&quot;:"
        "{&quot;code&quot;:&quot;EUR&quot;,&quot;decimals&quot;:2,&quot;symbol&quot;:&quot;\\u20ac&quot;}}"
    )
    assert list(currency_specs_all()) == ["CHIPS", "EUR"]
