"""The exports and the readable hand name the blinds where the engine's one rule
(``poker.engine.config.blind_seats``) puts them."""

from __future__ import annotations

import pytest

from handhistory.exports.ohh import _blind_action
from handhistory.exports.pokerstars import _blind_kind, _positions
from handhistory.readable import position_labels
from poker.engine.config import blind_seats


@pytest.mark.parametrize("n", range(2, 10))
def test_every_reader_of_a_hand_names_the_blinds_where_the_rule_puts_them(n: int) -> None:
    seats = blind_seats(n)
    assert _blind_action(seats.small, n) == "Post SB"
    assert _blind_action(seats.big, n) == "Post BB"
    assert _blind_kind(seats.small, n) == "small blind"
    assert _blind_kind(seats.big, n) == "big blind"
    assert "(small blind)" in _positions(n)[seats.small]
    assert "(big blind)" in _positions(n)[seats.big]
    assert "(button)" in _positions(n)[seats.button]
    labels = position_labels(n)
    assert labels[seats.big] == "BB" and labels[seats.button] == "BTN"
    assert labels[seats.small] == ("BTN" if seats.small == seats.button else "SB")
