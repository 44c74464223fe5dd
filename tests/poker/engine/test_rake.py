"""Rake: a percentage rounded down, capped, no flop no drop, taken before pots are awarded."""

from __future__ import annotations

from poker.engine.awards import rake_for
from poker.engine.game import PotAwarded, RakeConfig, RakeTaken
from tests.poker.engine.engine_helpers import config, script, started

RAKE = RakeConfig(bps=500, cap=30)


def check_down(state: object, n: int) -> object:
    for board in ("2c7h8d", "3s", "4h"):
        state, _ = script(state, f"board {board}", *(f"{i} check" for i in range(n)))  # type: ignore[arg-type]
    return state


def test_rake_is_a_percentage_of_the_pot_rounded_down() -> None:
    cfg = config((1000,) * 3, (50, 105, 0), min_bet=105, rake=RAKE)
    state, _ = started(cfg, "AsKs", "QhJh", "9c9d")
    state, _ = script(state, "2 call", "0 call", "1 check")
    state = check_down(state, 3)
    state, events = script(state, "auto")
    # 315 x 5 % = 15.75, rounded down to 15, taken before the pot is awarded.
    rake_index = next(i for i, e in enumerate(events) if type(e) is RakeTaken)
    award_index = next(i for i, e in enumerate(events) if type(e) is PotAwarded)
    assert events[rake_index] == RakeTaken(amount=15, amounts=(15,))
    assert rake_index < award_index
    assert events[award_index] == PotAwarded(pot=0, winners=(2,), amounts=(300,), hand="pair")
    assert sum(state.stacks) + state.rake == 3000


def test_rake_is_capped() -> None:
    cfg = config((1000,) * 3, rake=RAKE)
    state, _ = started(cfg, "AsKs", "QhJh", "9c9d")
    state, _ = script(state, "2 raise 400", "0 call", "1 call")
    state = check_down(state, 3)
    state, events = script(state, "auto")
    assert RakeTaken(amount=30, amounts=(30,)) in events
    assert state.stacks == (600, 600, 1770)


def test_no_flop_no_drop() -> None:
    cfg = config((1000,) * 3, rake=RAKE)
    state, _ = started(cfg, "AsKs", "QhJh", "9c9d")
    state, events = script(state, "2 raise 400", "0 fold", "1 fold")
    assert state.is_over
    assert not [e for e in events if type(e) is RakeTaken]
    assert state.rake == 0 and state.stacks == (950, 900, 1150)


def test_a_hand_won_without_showdown_after_the_flop_is_raked() -> None:
    cfg = config((1000,) * 3, rake=RAKE)
    state, _ = started(cfg, "AsKs", "QhJh", "9c9d")
    state, _ = script(state, "2 call", "0 call", "1 check", "board 2c7h8d")
    state, events = script(state, "0 bet 100", "1 fold", "2 fold")
    assert RakeTaken(amount=15, amounts=(15,)) in events
    assert state.stacks == (1185, 900, 900)


def test_rake_is_taken_from_the_main_pot_first_then_side_pots() -> None:
    assert rake_for(_pots(1000, 500), RakeConfig(bps=500, cap=60), True) == (50, 10)
    assert rake_for(_pots(1000, 500), RakeConfig(bps=500), True) == (50, 25)
    assert rake_for(_pots(1000, 500), RakeConfig(bps=500, no_flop_no_drop=False), False) == (
        50,
        25,
    )


def _pots(*amounts: int) -> tuple[object, ...]:
    from poker.engine.pots import Pot

    return tuple(Pot(a, (0, 1)) for a in amounts)
