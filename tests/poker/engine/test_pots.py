"""Pots: side pots from contribution layers, folded chips, uncalled bets, split pots."""

from __future__ import annotations

from poker.engine.game import Pot, PotAwarded, UncalledBetReturned
from poker.engine.pots import knocked_out_by, split_pot
from tests.poker.engine.engine_helpers import config, script, started


def test_side_pots_are_built_from_contribution_layers() -> None:
    state, _ = started(config((300, 1000, 1000)), "AsAd", "KsKd", "QsQd")
    state, _ = script(state, "2 raise 1000", "0 call", "1 call")
    assert state.pots == (Pot(900, (0, 1, 2)), Pot(1400, (1, 2)))
    state, events = script(
        state, "2 show", "0 show", "1 show", "board 2c7h9d", "board 3c", "board 4h"
    )
    awards = [e for e in events if type(e) is PotAwarded]
    assert awards == [
        PotAwarded(pot=0, winners=(0,), amounts=(900,), hand="pair"),
        PotAwarded(pot=1, winners=(1,), amounts=(1400,), hand="pair"),
    ]
    assert state.stacks == (900, 1400, 0)


def test_folded_players_chips_stay_in_the_pot_but_they_are_never_eligible() -> None:
    state, _ = started(config((1000, 300, 1000, 1000)), "2c3d", "AsAd", "KsKd", "QsQd")
    state, _ = script(state, "2 raise 300", "3 call", "0 fold", "1 call", "board 2h7h9d")
    state, events = script(state, "2 bet 500", "3 raise 700", "2 fold")
    assert UncalledBetReturned(player=3, amount=200) in events
    assert state.committed == (50, 300, 800, 800)
    assert state.pots == (Pot(950, (1, 3)), Pot(1000, (3,)))
    state, _ = script(state, "3 show", "1 show", "board 5c", "board 6d")
    assert state.stacks == (950, 950, 200, 1200)
    assert state.won == (0, 950, 0, 1000)


def test_uncalled_bet_is_returned() -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    state, events = script(state, "2 raise 300", "0 fold", "1 fold")
    assert UncalledBetReturned(player=2, amount=200) in events
    assert events[-2] == PotAwarded(pot=0, winners=(2,), amounts=(250,), hand="")
    assert state.stacks == (950, 900, 1150)


def test_split_pot_odd_chip_goes_to_the_first_winner_left_of_the_button() -> None:
    cfg = config((1000,) * 3, (25, 50, 0), min_bet=50)
    state, _ = started(cfg, "4h5h", "2c3d", "2d3c")
    state, _ = script(state, "2 call", "0 fold", "1 check", "board AsKsQs")
    for street in ("board Js", "board Ts", None):
        state, _ = script(state, "1 check", "2 check")
        if street:
            state, _ = script(state, street)
    state, events = script(state, "auto")
    assert PotAwarded(pot=0, winners=(1, 2), amounts=(63, 62), hand="straight_flush") in events
    assert state.stacks == (975, 1013, 1012)


def test_odd_chips_go_one_each_to_winners_from_the_left_of_the_button() -> None:
    assert split_pot(11, (1, 2, 4)) == (4, 4, 3)
    assert split_pot(10, (3, 5)) == (5, 5)
    assert split_pot(7, (6,)) == (7,)


def _winners(events) -> dict[int, tuple[int, ...]]:
    return {e.pot: e.winners for e in events if type(e) is PotAwarded}


def _all_in_three_ways(holes: tuple[str, str, str], board: tuple[str, str, str]):
    """Player 0 all in for 300, players 1 and 2 for 1,000, shown down on ``board``."""
    state, _ = started(config((300, 1000, 1000)), *holes)
    state, _ = script(state, "2 raise 1000", "0 call", "1 call")
    return script(state, "2 show", "0 show", "1 show", *(f"board {b}" for b in board))


def test_a_bust_is_credited_to_the_winners_of_the_highest_pot_the_player_was_eligible_for() -> None:
    state, events = _all_in_three_ways(("AsAd", "KsKd", "QsQd"), ("2c7h9d", "3c", "4h"))
    assert state.stacks == (900, 1400, 0)
    # Player 2 lost the main pot to 0 and the side pot to 1: the side pot busted them.
    assert knocked_out_by(state.pots, _winners(events), 2) == (1,)


def test_a_split_pot_that_busts_a_player_names_every_winner_in_split_order() -> None:
    state, events = _all_in_three_ways(("2c3d", "AsKd", "AdKs"), ("QhJc9d", "Ts", "5c"))
    assert state.stacks == (0, 1150, 1150)
    assert knocked_out_by(state.pots, _winners(events), 0) == (1, 2)


def test_no_knocker_is_named_for_a_player_eligible_for_no_awarded_pot() -> None:
    assert knocked_out_by((Pot(300, (0, 1)),), {}, 0) == ()
