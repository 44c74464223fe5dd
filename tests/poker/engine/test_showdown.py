"""Showdown order, mucking, the automatic showdown and the run-out."""

from __future__ import annotations

import pytest

from poker.engine.cards import parse_cards
from poker.engine.deck import FixedDeck
from poker.engine.game import (
    ENDED,
    RUNOUT,
    SHOWDOWN,
    BoardDealt,
    CardsMucked,
    CardsShown,
    IllegalAction,
    PotAwarded,
    legal_actions,
    showdown_auto,
    start_hand,
)
from tests.poker.engine.engine_helpers import config, script, started


def to_river(*holes: str, board: tuple[str, str, str] = ("2c7h8d", "3s", "4h")) -> object:
    state, _ = started(config((1000,) * len(holes)), *holes)
    n = len(holes)
    calls = [f"{i} call" for i in range(2, n)] + ["0 call", "1 check"]
    state, _ = script(state, *calls, f"board {board[0]}")
    for card in board[1:]:
        state, _ = script(state, *(f"{i} check" for i in range(n)), f"board {card}")
    return state


def test_showdown_order_starts_with_the_last_aggressor_on_the_final_street() -> None:
    state = to_river("AsKs", "QhJh", "9c9d")
    state, _ = script(state, "0 check", "1 bet 200", "2 call", "0 call")
    assert state.phase == SHOWDOWN and state.showdown_next == 1
    with pytest.raises(IllegalAction) as info:
        script(state, "0 show")
    assert info.value.code == "not_your_turn"
    state, events = script(state, "1 show", "2 show", "0 show")
    assert [e.player for e in events if type(e) is CardsShown] == [1, 2, 0]


def test_showdown_without_a_bet_starts_first_left_of_the_button() -> None:
    state = to_river("AsKs", "QhJh", "9c9d")
    state, _ = script(state, "0 check", "1 check", "2 check")
    assert state.showdown_queue == (0, 1, 2)


def test_a_losing_player_may_muck_at_showdown() -> None:
    state = to_river("AsKs", "QhJh", "9c9d")
    state, _ = script(state, "0 check", "1 check", "2 check", "0 show", "1 muck")
    assert state.mucked == (False, True, False) and state.active == (True, False, True)
    state, events = script(state, "2 show")
    assert events[-2] == PotAwarded(pot=0, winners=(2,), amounts=(300,), hand="pair")


def test_the_last_player_in_a_pot_cannot_muck_it_away() -> None:
    state, _ = started(config((300, 1000, 1000)), "AsAd", "KsKd", "QsQd")
    state, _ = script(state, "2 raise 1000", "0 call", "1 call", "2 show", "0 show", "1 muck")
    # Player 2 is now alone in the side pot: mucking would leave it without a winner.
    assert state.showdown_queue == ()
    state, _ = started(config((300, 1000, 1000)), "AsAd", "KsKd", "QsQd")
    state, _ = script(state, "2 raise 1000", "0 call", "1 call", "2 show", "0 show")
    state, _ = script(state, "1 muck", "board 2c7h9d", "board 3c", "board 4h")
    assert state.stacks == (900, 0, 1400)
    state, _ = started(config((300, 1000, 1000)), "AsAd", "KsKd", "QsQd")
    state, _ = script(state, "2 raise 1000", "0 call", "1 call", "2 muck", "0 show")
    with pytest.raises(IllegalAction) as info:
        script(state, "1 muck")
    assert info.value.code == "cannot_muck"


def test_when_all_others_muck_the_last_player_wins_without_showing() -> None:
    state = to_river("AsKs", "QhJh", "9c9d")
    state, _ = script(state, "0 check", "1 check", "2 check", "0 muck", "1 muck")
    assert state.phase == ENDED
    assert state.shown == (False, False, False)
    assert state.stacks == (900, 900, 1200)


def test_showdown_auto_shows_winners_and_mucks_losers() -> None:
    state = to_river("QhJh", "AsKs", "9c9d")
    state, _ = script(state, "0 check", "1 check", "2 check")
    state, events = showdown_auto(state)
    kinds = [(type(e).__name__, getattr(e, "player", None)) for e in events[:3]]
    # Q-high shows first (nothing to beat yet), A-high beats it, the nines win: all shown.
    assert kinds == [("CardsShown", 0), ("CardsShown", 1), ("CardsShown", 2)]
    state = to_river("9c9d", "AsKs", "QhJh")
    state, _ = script(state, "0 check", "1 check", "2 check")
    state, events = showdown_auto(state)
    assert [type(e) for e in events[:3]] == [CardsShown, CardsMucked, CardsMucked]
    assert state.is_over


def test_automatic_run_out_when_fewer_than_two_players_can_act() -> None:
    cards = parse_cards("AsAdKsKdQsQd2c7h9d3c4h")
    state, _ = start_hand(config((300, 1000, 1000)), FixedDeck(cards))
    state, events = script(state, "2 raise 1000", "0 call", "1 call")
    # Nobody can bet any more: cards are shown first, then the board runs out by itself.
    assert state.phase == SHOWDOWN and legal_actions(state) is None
    assert not [e for e in events if type(e) is BoardDealt]
    state, events = showdown_auto(state)
    boards = [e.cards for e in events if type(e) is BoardDealt]
    assert boards == [parse_cards("2c7h9d"), parse_cards("3c"), parse_cards("4h")]
    assert state.is_over and state.stacks == (900, 1400, 0)


def test_run_out_waits_for_explicit_board_cards_without_a_deck() -> None:
    state, _ = started(config((300, 1000, 1000)), "AsAd", "KsKd", "QsQd")
    state, _ = script(state, "2 raise 1000", "0 call", "1 call", "auto")
    assert state.phase == RUNOUT
    state, _ = script(state, "board 2c7h9d", "board 3c", "board 4h")
    assert state.is_over


def test_a_player_all_in_on_the_flop_shows_before_turn_and_river() -> None:
    state, _ = started(config((1000, 1000)), "AsAd", "KsKd")
    state, _ = script(state, "1 call", "0 check", "board 2c7h9d", "0 bet 900", "1 call")
    assert state.phase == SHOWDOWN and state.showdown_queue == (0, 1)


def test_short_deck_flush_beats_full_house() -> None:
    cfg = config((1000, 1000), variant="NS")
    state, _ = started(cfg, "AhKh", "9c9d")
    state, _ = script(state, "1 call", "0 check", "board 9h6h7h")
    state, _ = script(state, "0 check", "1 check", "board 7s", "0 check", "1 check")
    state, events = script(state, "board Ts", "0 check", "1 check", "auto")
    assert events[-2] == PotAwarded(pot=0, winners=(0,), amounts=(200,), hand="flush")


def test_omaha_uses_exactly_two_hole_cards() -> None:
    cfg = config((1000, 1000), variant="PO")
    # Player 0 holds four hearts but only two may play: no flush with two board hearts.
    state, _ = started(cfg, "AhKhQhJh", "9c9d2s3s")
    state, _ = script(state, "1 call", "0 check", "board 9h5h7c")
    state, _ = script(state, "0 check", "1 check", "board 6d", "0 check", "1 check")
    state, events = script(state, "board 2d", "0 check", "1 check", "auto")
    assert events[-2] == PotAwarded(pot=0, winners=(1,), amounts=(200,), hand="three_of_a_kind")
