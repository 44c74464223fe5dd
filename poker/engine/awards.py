"""Settlement: rake, then each pot to its best eligible hand(s).

Rake is taken before any pot is awarded, pot by pot from the main pot to the last side
pot: each pot pays ``floor(amount * bps / 10000)`` until the hand's cap is used up. So the
rake of a pot is never more than its own percentage, side pots pay only after the main
pot, and the total never exceeds the cap. With ``no_flop_no_drop`` a hand that ends
before a flop is dealt pays no rake.
"""

from __future__ import annotations

from poker.engine.config import RakeConfig
from poker.engine.events import Event, HandEnded, PotAwarded, RakeTaken
from poker.engine.pots import Pot, split_pot
from poker.engine.state import HandState


def rake_for(pots: tuple[Pot, ...], rake: RakeConfig, flop_dealt: bool) -> tuple[int, ...]:
    """Rake taken from each pot (see the module docstring for the rule).

    >>> rake_for((Pot(1000, (0, 1)), Pot(500, (1,))), RakeConfig(bps=500, cap=60), True)
    (50, 10)
    >>> rake_for((Pot(1000, (0, 1)),), RakeConfig(bps=500, cap=60), False)
    (0,)
    """
    if not rake.bps or (rake.no_flop_no_drop and not flop_dealt):
        return (0,) * len(pots)
    left = rake.cap if rake.cap else sum(p.amount for p in pots)
    out = []
    for pot in pots:
        take = min(pot.amount * rake.bps // 10_000, left)
        left -= take
        out.append(take)
    return tuple(out)


def award_events(state: HandState) -> list[Event]:
    """The settlement events of a hand whose betting and showdown are complete.

    Each pot goes to the eligible players with the best hand; ties split it, odd chips
    going one each to the winners first left of the button. A pot with one eligible
    player is uncontested (empty ``hand`` description).
    """
    game = state.game
    board = state.board
    pots = state.pots
    rakes = rake_for(pots, state.config.rake, len(board) >= 3)
    events: list[Event] = []
    if any(rakes):
        events.append(RakeTaken(amount=sum(rakes), amounts=rakes))
    stacks = list(state.stacks)
    hole = state.hole_cards
    values: dict[int, int] = {}
    for index, pot in enumerate(pots):
        amount = pot.amount - rakes[index]
        eligible = pot.eligible
        winners: tuple[int, ...]
        if len(eligible) == 1:
            winners = eligible
            shown = state.shown[eligible[0]] and len(board) == 5
            hand = game.hand_name(game.hand_value(hole[eligible[0]], board)) if shown else ""
        else:
            for p in eligible:
                if p not in values:
                    values[p] = game.hand_value(hole[p], board)
            best = max(values[p] for p in eligible)
            winners = tuple(p for p in eligible if values[p] == best)
            hand = game.hand_name(best)
        if not amount:
            continue
        shares = split_pot(amount, winners)
        for p, share in zip(winners, shares, strict=True):
            stacks[p] += share
        events.append(PotAwarded(pot=index, winners=winners, amounts=shares, hand=hand))
    events.append(HandEnded(final_stacks=tuple(stacks), server_seed=state.server_seed))
    return events
