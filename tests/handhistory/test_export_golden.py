"""Golden files: one fixed-limit and one pot-limit Omaha hand in PokerStars text, written
by hand from the rules of the layout, and the same hands' PHH. The formatters are pure, so
the hands are played by the engine from PHH scripts with known cards (no database)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from handhistory.exports import phh, pokerstars
from handhistory.exports.records import Viewer
from poker.engine.cards import parse_cards
from poker.engine.variants import get_variant
from tests.support.handhistory import FL, PLO, record_of

GOLDEN = Path(__file__).parent / "export_golden"


@pytest.mark.parametrize(("script", "name"), [(FL, "fl"), (PLO, "plo")])
def test_pokerstars_export_matches_the_hand_written_golden_file(script, name):
    record = record_of(script)
    viewer = Viewer(user_id=record.player_ids[0])
    expected = (GOLDEN / f"{name}.txt").read_text()
    assert pokerstars.hand_text(record, viewer) == expected


@pytest.mark.parametrize(
    ("variant", "hole", "board", "words"),
    [
        ("NT", "Kh5d", "Kc5s9h2d3c", "two pair, Kings and Fives"),
        ("NT", "AhAd", "Kc8s7h2d3c", "a pair of Aces"),
        ("NT", "Ah9d", "Kc8s7h2d3c", "high card Ace"),
        ("NT", "7h7d", "7c8sKh2d3c", "three of a kind, Sevens"),
        ("NT", "9hTd", "JcQsKh2d3c", "a straight, Nine to King"),
        ("NT", "Ah2d", "3c4s5h9dKc", "a straight, Ace to Five"),
        ("NT", "AhTh", "2h7h9hKcKd", "a flush, Ace high"),
        ("NT", "KhKd", "Kc5s5h2d3c", "a full house, Kings full of Fives"),
        ("NT", "AhAd", "AcAs5h2d3c", "four of a kind, Aces"),
        ("NT", "9hTh", "JhQhKh2d3c", "a straight flush, Nine to King"),
        ("NT", "AhKh", "QhJhTh2d3c", "a Royal Flush"),
        ("NT", "2h2d", "Kc8s7h5d3c", "a pair of Deuces"),
        ("NT", "6h6d", "Kc8s7h5d3c", "a pair of Sixes"),
        ("FT", "Ks9s", "Qs8s3h4d2s", "a flush, King high"),
        # Omaha plays exactly two hole cards and three of the board: four spades in the hand
        # and one on the board make no flush; a full house on the board is only trips.
        ("PO", "AsKsQsJs", "Ts6c2h5d3c", "high card Ace"),
        ("PO", "Qc7d5h2s", "AhAdAsKcKd", "three of a kind, Aces"),
        ("PO", "9c9d8c7d", "Ts6c2h5sJd", "a pair of Nines"),
        ("PO", "AsKsQhJh", "Ts6c2h5sJd", "a pair of Jacks"),
        ("PO", "8h8dKcQd", "8c4s4h5sJd", "a full house, Eights full of Fours"),
        # Short deck: A-6-7-8-9 is its lowest straight.
        ("NS", "Ah6d", "7c8s9hKdQc", "a straight, Ace to Nine"),
        # Shown before the flop (everyone else folded): the hole cards alone.
        ("NT", "QhQd", "", "a pair of Queens"),
        ("PO", "Ah9c9d2s", "", "a pair of Nines"),
    ],
)
def test_pokerstars_text_names_shown_hands_in_pokerstars_words(variant, hole, board, words):
    assert pokerstars.hand_words(get_variant(variant), parse_cards(hole), parse_cards(board)) == (
        words
    )


def test_pokerstars_rake_lines_give_the_pot_before_rake_and_the_rake_taken():
    # pokerkit's reader ignores rake, so the rake lines are checked here.
    text = pokerstars.hand_text(record_of(FL), Viewer(user_id=11))
    assert "Total pot $19 | Rake $0.95\n" in text  # 5% of $19, under the $1 cap
    assert "ann collected $18.05 from pot\n" in text  # collected is net of rake


def test_phh_export_of_the_golden_hand_names_players_seats_and_the_rake():
    text = phh.hand_phh(record_of(FL), Viewer(user_id=11))
    data = tomllib.loads(text)
    assert data["players"] == ["ann", "bob", "cy"]
    assert data["seats"] == [2, 4, 5] and data["seat_count"] == 6
    assert data["hand"] == 4321 and data["table"] == "Golden" and data["currency"] == "USD"
    assert (data["year"], data["month"], data["day"], str(data["time"])) == (
        2025,
        3,
        14,
        "19:15:07",
    )
    assert data["_rake"] == 95 and data["small_bet"] == 100 and data["big_bet"] == 200
    assert "d dh p2 ????" in data["actions"]  # bob folded: his cards stay unknown
    assert "_server_seed" not in data
