"""Small drivers shared by the engine tests: configs, scripted hands, random legal play."""

from __future__ import annotations

import random
from collections.abc import Sequence

from poker.engine.cards import parse_cards
from poker.engine.game import (
    Event,
    HandConfig,
    HandState,
    act,
    deal_board,
    deal_hole,
    legal_actions,
    muck,
    show,
    showdown_auto,
    start_hand,
)


def config(
    stacks: Sequence[int],
    blinds: Sequence[int] | None = None,
    *,
    variant: str = "NT",
    antes: Sequence[int] = (),
    min_bet: int = 100,
    **kwargs: object,
) -> HandConfig:
    """A hand config; blinds default to 50/100 in PHH order for the table size."""
    n = len(stacks)
    if blinds is None:
        blinds = (50, 100) + (0,) * (n - 2)
    stakes: dict[str, object] = {"min_bet": min_bet}
    if variant == "FT":
        stakes = {"small_bet": 100, "big_bet": 200}
    stakes.update(kwargs)
    return HandConfig(
        variant=variant,
        starting_stacks=tuple(stacks),
        blinds_or_straddles=tuple(blinds),
        antes=tuple(antes),
        **stakes,  # type: ignore[arg-type]
    )


def script(state: HandState, *lines: str) -> tuple[HandState, list[Event]]:
    """Drive a hand with short lines: ``deal 0 AsKs``, ``board 2c3c4c``, ``2 raise 300``,
    ``1 call``, ``0 check``, ``3 fold``, ``0 show``, ``1 muck``, ``auto`` (auto showdown)."""
    events: list[Event] = []
    for line in lines:
        words = line.split()
        if words[0] == "deal":
            state, new = deal_hole(state, int(words[1]), parse_cards(words[2]))
        elif words[0] == "board":
            state, new = deal_board(state, parse_cards(words[1]))
        elif words[0] == "auto":
            state, new = showdown_auto(state)
        elif words[1] == "show":
            state, new = show(state, int(words[0]))
        elif words[1] == "muck":
            state, new = muck(state, int(words[0]))
        else:
            amount = int(words[2]) if len(words) > 2 else None
            state, new = act(state, int(words[0]), words[1], amount)
        events.extend(new)
    return state, events


def started(cfg: HandConfig, *holes: str) -> tuple[HandState, list[Event]]:
    """Start ``cfg`` without a deck and deal the given hole cards to players 0, 1, ..."""
    state, events = start_hand(cfg)
    state, more = script(state, *(f"deal {i} {cards}" for i, cards in enumerate(holes)))
    return state, events + more


def random_hand(
    state: HandState, rng: random.Random, events: list[Event] | None = None
) -> tuple[HandState, list[Event]]:
    """Play a dealt hand to the end with random legal decisions (and auto showdown)."""
    events = [] if events is None else events
    while not state.is_over:
        legal = legal_actions(state)
        if legal is None:
            state, new = showdown_auto(state)
        else:
            action = rng.choice(legal.actions)
            amount = None
            if action in ("bet", "raise"):
                assert legal.min_to is not None and legal.max_to is not None
                amount = rng.randint(legal.min_to, legal.max_to)
            state, new = act(state, legal.actor, action, amount)
        events.extend(new)
    return state, events
