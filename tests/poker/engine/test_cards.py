"""Card integers and their text form."""

from __future__ import annotations

import doctest

import pytest

from poker.engine import cards as cards_module
from poker.engine.cards import (
    FULL_DECK,
    RANKS,
    SHORT_DECK,
    SUITS,
    CardParseError,
    card_rank,
    card_suit,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
)


def test_card_int_is_rank_times_four_plus_suit() -> None:
    assert parse_card("2c") == 0
    assert parse_card("2d") == 1
    assert parse_card("3c") == 4
    assert parse_card("As") == 51
    for card in FULL_DECK:
        assert card == card_rank(card) * 4 + card_suit(card)
        assert format_card(card) == RANKS[card_rank(card)] + SUITS[card_suit(card)]


def test_every_card_round_trips_through_text() -> None:
    assert parse_cards(format_cards(FULL_DECK)) == FULL_DECK
    assert len({format_card(c) for c in FULL_DECK}) == 52


def test_parsing_ignores_rank_case_suit_case_and_spaces() -> None:
    assert parse_card("tD") == parse_card("Td")
    assert parse_cards("As Kd\t7h") == (51, 45, 22)


def test_short_deck_is_the_36_cards_from_six_to_ace() -> None:
    assert len(SHORT_DECK) == 36
    assert {format_card(c)[0] for c in SHORT_DECK} == set("6789TJQKA")
    assert set(SHORT_DECK) < set(FULL_DECK)


@pytest.mark.parametrize("text", ["", "A", "Ass", "1c", "Ax", "10h"])
def test_parse_card_rejects_text_that_is_not_one_card(text: str) -> None:
    with pytest.raises(CardParseError):
        parse_card(text)


def test_parse_cards_rejects_an_odd_length() -> None:
    with pytest.raises(CardParseError, match="odd number"):
        parse_cards("AsK")


@pytest.mark.parametrize("card", [-1, 52, "As", None])
def test_format_card_rejects_non_cards(card: object) -> None:
    with pytest.raises(CardParseError):
        format_card(card)  # type: ignore[arg-type]


def test_card_parse_error_is_a_value_error() -> None:
    assert issubclass(CardParseError, ValueError)


def test_module_docstring_examples_run() -> None:
    assert doctest.testmod(cards_module).failed == 0
