"""Engine throughput: full random 6-max no-limit hold'em hands, ours against pokerkit.

Usage: ``python -m benchmarks.bench_engine [--hands 5000] [--json PATH]``.

Both engines play 6-max NLHE (blinds 50/100, stacks 10,000) under the same seeded random
legal policy: pick one legal decision uniformly (fold only when facing a bet), and for a
bet or raise a uniform amount between the legal minimum and maximum. Our figure includes
creating every event, a fresh provably fair deck per hand (``FairDeck`` with a seeded
seed: HMAC-SHA256 shuffle) and the automatic showdown; pokerkit deals from its own deck
with its automations. pokerkit is optional: without it that part is reported as skipped.
We also report events per hand and the cost of ``replay()`` per hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
import warnings
from pathlib import Path
from typing import Any

from poker.engine.deck import FairDeck
from poker.engine.game import (
    Event,
    HandConfig,
    act,
    legal_actions,
    replay,
    showdown_auto,
    start_hand,
)

SEED = 20240601
ROUNDS = 3
PLAYERS = 6
STACK = 10_000
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "engine.json"
CONFIG = HandConfig(
    variant="NT",
    starting_stacks=(STACK,) * PLAYERS,
    blinds_or_straddles=(50, 100) + (0,) * (PLAYERS - 2),
    min_bet=100,
)


def play_ours(hands: int, seed: int = SEED) -> tuple[float, float, list[list[Event]]]:
    """Wall and CPU seconds to play ``hands`` hands through our engine, and their events."""
    rng = random.Random(seed)
    seeds = [rng.randbytes(32) for _ in range(hands)]
    histories: list[list[Event]] = []
    choice, randint = rng.choice, rng.randint
    start, cpu = time.perf_counter(), time.process_time()
    for server_seed in seeds:
        state, events = start_hand(CONFIG, FairDeck(server_seed))
        while not state.is_over:
            legal = legal_actions(state)
            if legal is None:
                state, more = showdown_auto(state)
            else:
                action = choice(legal.actions)
                amount = None
                if action == "bet" or action == "raise":
                    amount = randint(legal.min_to, legal.max_to)  # type: ignore[arg-type]  # a bet's bounds are set whenever betting is legal
                state, more = act(state, legal.actor, action, amount)
            events += more
        histories.append(events)
    return time.perf_counter() - start, time.process_time() - cpu, histories


def play_pokerkit(hands: int, seed: int = SEED) -> tuple[float, float]:
    """Wall and CPU seconds to play ``hands`` hands through pokerkit, same policy."""
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.RUNOUT_COUNT_SELECTION,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    rng = random.Random(seed)
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(hands):
            state = NoLimitTexasHoldem.create_state(
                automations,
                True,
                0,
                CONFIG.blinds_or_straddles,
                CONFIG.min_bet,
                CONFIG.starting_stacks,
                PLAYERS,
                mode=Mode.CASH_GAME,
            )
            while state.status:
                actor = state.actor_index
                assert actor is not None
                owed = max(state.bets) - state.bets[actor]
                actions = ["fold", "call"] if owed else ["check"]
                if state.can_complete_bet_or_raise_to():
                    actions.append("raise")
                action = rng.choice(actions)
                if action == "fold":
                    state.fold()
                elif action == "raise":
                    low = state.min_completion_betting_or_raising_to_amount
                    high = state.max_completion_betting_or_raising_to_amount
                    assert low is not None and high is not None
                    state.complete_bet_or_raise_to(rng.randint(low, high))
                else:
                    state.check_or_call()
    return time.perf_counter() - start, time.process_time() - cpu


def time_replay(histories: list[list[Event]]) -> float:
    """CPU seconds to replay every history once."""
    start = time.process_time()
    for events in histories:
        replay(events)
    return time.process_time() - start


def _pokerkit_available() -> bool:
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        return False
    return True


def run(
    hands: int = 5_000, json_path: Path | None = DEFAULT_JSON, seed: int = SEED
) -> dict[str, Any]:
    """Run the benchmark, print a summary, write JSON to ``json_path`` (if given).

    Rates use CPU time (``time.process_time``), steadier than wall time on a shared
    machine; wall-clock rates are reported too. Each figure is the best of ``ROUNDS``
    rounds, ours and pokerkit's interleaved so that machine load hits both alike;
    pokerkit, far slower, plays a fifth of the hands per round.
    """
    with_pokerkit = _pokerkit_available()
    pk_hands = max(1, hands // 5)
    ours: list[tuple[float, float, list[list[Event]]]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(ROUNDS):
        ours.append(play_ours(hands, seed))
        if with_pokerkit:
            theirs.append(play_pokerkit(pk_hands, seed))
    wall_s, ours_s, histories = min(ours, key=lambda r: r[1])
    events = sum(len(h) for h in histories)
    replay_s = min(time_replay(histories) for _ in range(ROUNDS))
    result: dict[str, Any] = {
        "benchmark": "engine",
        "hands": hands,
        "rounds": ROUNDS,
        "players": PLAYERS,
        "policy": "uniform random legal decision, uniform bet size",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "ours": {
            "hands_per_s": round(hands / ours_s, 1),
            "us_per_hand": round(1e6 * ours_s / hands, 1),
            "wall_hands_per_s": round(hands / wall_s, 1),
            "events_per_hand": round(events / hands, 2),
            "replay_us_per_hand": round(1e6 * replay_s / hands, 1),
        },
    }
    if not with_pokerkit:
        result["pokerkit"] = {
            "skipped": "pokerkit is not installed (pip install 'pokerkit>=0.5,<0.7')"
        }
        print("pokerkit is not installed: its part of the benchmark is skipped")
    else:
        pk_wall_s, pk_s = min(theirs, key=lambda r: r[1])
        result["pokerkit"] = {
            "hands": pk_hands,
            "hands_per_s": round(pk_hands / pk_s, 1),
            "us_per_hand": round(1e6 * pk_s / pk_hands, 1),
            "wall_hands_per_s": round(pk_hands / pk_wall_s, 1),
        }
        result["speedup_vs_pokerkit"] = round(
            result["ours"]["hands_per_s"] / result["pokerkit"]["hands_per_s"], 2
        )
    print(json.dumps(result, indent=2))
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2) + "\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5_000)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    run(args.hands, args.json)


if __name__ == "__main__":
    main()
