"""Which engine index posts which blind: one rule (``poker.engine.config.blind_seats``),
which the engine's forced bets, the dealer and every reader of a hand agree with."""

from __future__ import annotations

import pytest

from poker.engine.config import BlindSeats, blind_seats, forced_by_player
from poker.engine.errors import InvalidConfig
from poker.engine.game import BlindPosted, start_hand
from tests.poker.engine.engine_helpers import config


def test_left_of_the_button_posts_the_small_blind_and_the_next_the_big() -> None:
    assert blind_seats(3) == BlindSeats(small=0, big=1, button=2)
    assert blind_seats(9) == BlindSeats(small=0, big=1, button=8)


def test_heads_up_the_button_posts_the_small_blind() -> None:
    assert blind_seats(2) == BlindSeats(small=1, big=0, button=1)


def test_a_hand_needs_two_players_to_have_blinds() -> None:
    with pytest.raises(InvalidConfig):
        blind_seats(1)


@pytest.mark.parametrize("n", range(2, 10))
def test_the_engine_posts_the_blinds_at_the_seats_the_rule_names(n: int) -> None:
    seats = blind_seats(n)
    amounts = [0] * n
    amounts[seats.small], amounts[seats.big] = 50, 100
    _, events = start_hand(config((1000,) * n, forced_by_player(amounts)))
    posted = {e.player: e.amount for e in events if isinstance(e, BlindPosted)}
    assert posted == {seats.small: 50, seats.big: 100}
