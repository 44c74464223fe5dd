"""A simulated room played on the pure engine: the same plan, seating and bots as
``room_simulate``, no database, hundreds of hands a second.

``room_simulate`` plays through the live table service so the stores hold what production
writes; measuring how often honest pairs are taken for colluders needs many rooms, of
many seeds, which only the pure engine plays fast enough. Each table plays its sessions'
lineups; every hand starts from each player's own buy-in (a short-stacker's is small),
the button moves by one each hand, and a hand's facts are those the analysis computes
from the stored events (``fraud.features.hand_facts``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import cycle

from fraud.features import HandFacts, hand_facts
from fraud.simulation import bots
from fraud.simulation.room import RoomPlan, RoomTruth, room_truth, schedule
from fraud.simulation.tables import BIG_BLIND, SMALL_BLIND
from poker.engine.betting import legal_actions
from poker.engine.config import HandConfig
from poker.engine.deck import FixedDeck
from poker.engine.events import Event
from poker.engine.game import act, showdown_auto, start_hand
from poker.engine.state import SHOWDOWN


def user_id(index: int) -> int:
    """The id a plan's player carries in the pure room's facts."""
    return index + 1


def room_play(
    plan: RoomPlan,
    *,
    hands: int,
    tables: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> tuple[RoomTruth, list[HandFacts]]:
    """Plays about ``hands`` hands of the room at ``tables`` tables; the truth and every
    hand's facts, in the order played. Deterministic: one seed gives one room and deal."""
    relations = plan.relations()
    styles = {p.index: bots.STYLES[p.style] for p in plan.players}
    rng = random.Random(f"{seed}-pure")
    per_table = math.ceil(hands / tables)
    out: list[HandFacts] = []
    sessions = schedule(plan, hands=hands, tables=tables, seed=seed)
    for position in range(tables):
        played = idle = 0
        # The sessions over again when some left this table empty (a player alone cannot
        # play), until it dealt its share; none with two players: it deals nothing.
        for session in cycle(sessions):
            lineup = list(session.lineups[position])
            idle = 0 if len(lineup) >= 2 else idle + 1
            if played >= per_table or idle > len(sessions):
                break
            for number in range(min(session.hands, per_table - played) if idle == 0 else 0):
                turn = number % len(lineup)
                seated = lineup[turn:] + lineup[:turn]  # the button moves one seat a hand
                events = _hand(seated, styles, relations, rng, hand_id=len(out) + 1)
                ids = [user_id(i) for i in seated]
                out.append(
                    hand_facts(
                        hand_id=len(out) + 1,
                        player_ids=ids,
                        usernames=[f"p{i}" for i in ids],
                        events=events,
                    )
                )
                played += 1
                if progress is not None:
                    progress(len(out))
    ids = [user_id(p.index) for p in plan.players]
    truth = room_truth(plan, ids, [f"p{i}" for i in ids], hands=len(out), tables=tables)
    return truth, out


def _hand(
    seated: list[int],
    styles: dict[int, bots.Style],
    relations: dict[int, dict[int, str]],
    rng: random.Random,
    *,
    hand_id: int,
) -> list[Event]:
    n = len(seated)
    deck = list(range(52))
    rng.shuffle(deck)
    config = HandConfig(
        variant="NT",
        starting_stacks=tuple(styles[i].buy_in_bb * BIG_BLIND for i in seated),
        blinds_or_straddles=(SMALL_BLIND, BIG_BLIND) + (0,) * (n - 2),
        min_bet=BIG_BLIND,
    )
    state, events = start_hand(config, FixedDeck(deck))
    memory = bots.HandMemory(hand_id=hand_id)
    position = {index: seat for seat, index in enumerate(seated)}
    while not state.is_over:
        if state.phase == SHOWDOWN:
            state, more = showdown_auto(state)
        else:
            legal = legal_actions(state)
            assert legal is not None
            me = seated[legal.actor]
            seat = bots.Seat(
                me=legal.actor,
                style=styles[me],
                relations={
                    position[o]: r for o, r in relations.get(me, {}).items() if o in position
                },
            )
            action, amount = bots.decide(state, seat, legal, memory, rng)
            memory.record(state.street, legal.actor, action)
            state, more = act(state, legal.actor, action, amount)
        events.extend(more)
    return events
