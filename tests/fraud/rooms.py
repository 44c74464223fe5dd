"""Small hand-built rooms for the detector tests: the pure engine, simple bots, no database.

Bots see only their own cards (honest) unless their scheme says otherwise. ``play_room``
deals random hands (seeded) at one 6-max table drawn from the room each hand (partners
join each other's table with p = 0.8, as the simulated room's colluders do), plays them
to the end through ``poker.engine.game`` and returns each hand's facts
(``fraud.features.hand_facts``), exactly as the analysis computes them from stored events.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from fraud.equity import preflop_strength
from fraud.features import HandFacts, hand_facts
from poker.engine.betting import legal_actions
from poker.engine.config import HandConfig
from poker.engine.deck import FixedDeck
from poker.engine.evaluator import CATEGORIES, category, evaluate
from poker.engine.events import Event
from poker.engine.game import act, showdown_auto, start_hand
from poker.engine.state import SHOWDOWN, HandState

BB = 100
STACK = 100 * BB
_STRONG_MADE = set(CATEGORIES[2:])  # two pair or better


@dataclass
class Bot:
    id: int
    #: Preflop: plays hands at least this strong (equity against a random hand).
    threshold: float = 0.50
    #: Chance of betting or raising a strong hand.
    aggression: float = 0.7
    partner: int | None = None
    #: "dump" (loses to the partner on purpose), "take" (the dumper's partner),
    #: "soft" (never bets into the partner, folds to them), "share" (sees the partner's
    #: cards: the weaker folds preflop).
    scheme: str | None = None


def play_room(bots: list[Bot], *, hands: int, seed: int, seats: int = 6) -> list[HandFacts]:
    rng = random.Random(seed)
    by_id = {b.id: b for b in bots}
    out = []
    for number in range(hands):
        lineup = rng.sample([b.id for b in bots], seats)
        for b in list(lineup):  # partners join each other's table (p = 0.8), as colluders do
            partner = by_id[b].partner
            if partner is not None and partner not in lineup and rng.random() < 0.8:
                alone = [x for x in lineup if by_id[x].partner is None]
                if alone:
                    lineup[lineup.index(rng.choice(alone))] = partner
        events = play_hand([by_id[i] for i in lineup], rng)
        out.append(hand_facts(hand_id=number + 1, player_ids=lineup,
                              usernames=[f"p{i}" for i in lineup], events=events))  # fmt: skip
    return out


def play_hand(bots: list[Bot], rng: random.Random) -> list[Event]:
    n = len(bots)
    deck = list(range(52))
    rng.shuffle(deck)
    config = HandConfig(variant="NT", starting_stacks=(STACK,) * n,
                        blinds_or_straddles=(BB // 2, BB) + (0,) * (n - 2), min_bet=BB)  # fmt: skip
    state, events = start_hand(config, FixedDeck(deck))
    while not state.is_over:
        if state.phase == SHOWDOWN:
            state, more = showdown_auto(state)
        else:
            p = state.actor
            assert p is not None
            action, amount = decide(state, p, bots, rng)
            state, more = act(state, p, action, amount)
        events.extend(more)
    return events


def _strength(state: HandState, p: int) -> str:
    hole = state.hole_cards[p]
    if not state.board:
        s = preflop_strength(hole)
        return "strong" if s >= 0.62 else ("medium" if s >= 0.50 else "weak")
    made = category(evaluate((*hole, *state.board)))
    if made in _STRONG_MADE:
        return "strong"
    return "medium" if made == "pair" else "weak"


def decide(state: HandState, p: int, bots: list[Bot], rng: random.Random) -> tuple[str, int | None]:
    legal = legal_actions(state)
    assert legal is not None
    me = bots[p]
    live = [q for q in range(len(bots)) if state.active[q]]
    partner = next((q for q in live if bots[q].id == me.partner), None)
    heads_up_with_partner = partner is not None and len(live) == 2
    free = "check" in legal.actions
    can_raise = legal.min_to is not None and legal.max_to is not None
    aggressive = "raise" if "raise" in legal.actions else "bet"
    strength = _strength(state, p)
    facing_partner = not free and partner is not None and state.bets[partner] == max(state.bets)

    if me.scheme == "dump" and partner is not None:
        # Into every pot with the partner, then all in with nothing, or folds to them.
        if not state.board:
            return ("check", None) if free else ("call", None)
        if strength == "weak" and can_raise:
            return aggressive, legal.max_to
        return ("check", None) if free else ("fold", None)
    if me.scheme == "take" and facing_partner:
        return "call", None
    if me.scheme == "soft" and heads_up_with_partner:
        return ("check", None) if free else ("fold", None)
    if me.scheme == "soft" and partner is not None and not state.board and not free:
        return "call", None  # in every pot with the partner, to check it down together
    if me.scheme == "share" and partner is not None and not state.board:
        mine = preflop_strength(state.hole_cards[p])
        if preflop_strength(state.hole_cards[partner]) > mine and not free:
            return "fold", None

    weak_start = not state.board and preflop_strength(state.hole_cards[p]) < me.threshold
    if weak_start and strength != "strong":
        return ("check", None) if free else ("fold", None)
    if strength == "strong" and can_raise and rng.random() < me.aggression:
        pot = sum(state.committed) + sum(state.bets)
        to = max(legal.min_to or 0, min(legal.max_to or 0, max(state.bets) + pot))
        return aggressive, to
    if free:
        return "check", None
    if strength == "weak" and state.board:
        return "fold", None
    return "call", None
