"""The simulated room's bots: honest styles and the colluders' lines, as pure decisions.

A bot sees the engine state of the running hand (the simulator holds every card, the
way the server does) but judges only what its player may know: its own hole cards and
the board, plus its partners' hole cards for a card sharer. No Django here: a decision is
a function of the state, the bot's style, its relations at the table and a seeded RNG.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations

from poker.engine.betting import LegalActions
from poker.engine.evaluator import evaluate7_unchecked
from poker.engine.state import HandState

# Relations a bot has to another player at the table (the other's index -> relation).
DUMPS_TO = "dumps_to"  # this bot loses chips on purpose to the other
DUMPED_TO = "dumped_to"  # the other loses chips to this bot
SOFT = "soft"
SHARES = "shares"


@dataclass(frozen=True)
class Style:
    """An honest way to play. Preflop thresholds are percentiles of the 1,326 starting
    hands (0.8 = the best 20%); postflop ones are heads-up equity against a random hand."""

    name: str
    play: float  # preflop strength needed to enter the pot
    raise_pre: float  # preflop strength to open-raise / 3-bet
    aggression: float  # how often a hand worth a bet or raise is bet or raised
    value: float  # postflop equity worth a bet
    call_margin: float  # equity over the pot odds needed to call (negative: calls light)
    bluff: float  # how often a weak hand bets when checked to
    buy_in_bb: int = 100  # the stack it sits with and tops up to, in big blinds


# A table, one row per line: the formatter leaves it as written (fmt: skip).
STYLES: dict[str, Style] = {
    s.name: s
    for s in (
        Style("tight", play=0.80, raise_pre=0.88, aggression=0.7, value=0.70, call_margin=0.08, bluff=0.03),
        Style("loose", play=0.50, raise_pre=0.80, aggression=0.55, value=0.64, call_margin=0.0, bluff=0.10),
        Style("passive", play=0.60, raise_pre=0.95, aggression=0.25, value=0.75, call_margin=0.0, bluff=0.02),
        Style("aggressive", play=0.65, raise_pre=0.75, aggression=0.85, value=0.60, call_margin=0.03, bluff=0.20),
        Style("station", play=0.40, raise_pre=0.97, aggression=0.2, value=0.80, call_margin=-0.15, bluff=0.01),
        Style("tight_passive", play=0.82, raise_pre=0.97, aggression=0.12, value=0.85, call_margin=0.05, bluff=0.0),
        Style("maniac", play=0.30, raise_pre=0.55, aggression=0.9, value=0.52, call_margin=-0.05, bluff=0.45),
        Style("nit", play=0.90, raise_pre=0.94, aggression=0.6, value=0.78, call_margin=0.12, bluff=0.0),
        Style("short_stack", play=0.78, raise_pre=0.85, aggression=0.8, value=0.62, call_margin=0.03, bluff=0.05, buy_in_bb=25),
    )
}  # fmt: skip
#: The styles honest players are dealt (the two tight-passive hard negatives are set apart).
HONEST_STYLES = (
    "tight",
    "loose",
    "passive",
    "aggressive",
    "station",
    "maniac",
    "nit",
    "short_stack",
)

#: Share of chip-dumping opportunities (partners heads-up) the dumper takes.
DUMP_RATE = 0.4
#: Preflop strength from which a card sharer squeezes a third player with the partner.
SQUEEZE = 0.93


def _chen(r1: int, r2: int, suited: bool) -> float:
    """Bill Chen's preflop score of two ranks (0 = deuce .. 12 = ace)."""
    hi, lo = max(r1, r2), min(r1, r2)
    high = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(hi, (hi + 2) / 2)
    if hi == lo:
        return max(5.0, 2 * high)
    gap = hi - lo - 1
    score = high + (2 if suited else 0) - ((0, 1, 2, 4)[gap] if gap < 4 else 5)
    if gap <= 1 and hi < 10:
        score += 1
    return score


def _percentiles() -> dict[tuple[int, int, bool], float]:
    scores = {
        (c1, c2): _chen(c1 // 4, c2 // 4, c1 % 4 == c2 % 4) for c1, c2 in combinations(range(52), 2)
    }
    ordered = sorted(scores.values())
    n = len(ordered)
    rank = {v: (ordered.index(v) + (n - ordered[::-1].index(v))) / 2 / n for v in set(ordered)}
    # c1 < c2, so c2 holds the higher rank: keys are (high, low, suited)
    return {(c2 // 4, c1 // 4, c1 % 4 == c2 % 4): rank[v] for (c1, c2), v in scores.items()}


_PREFLOP = _percentiles()


def preflop_strength(cards: tuple[int, ...]) -> float:
    """The share of starting hands that are worse than ``cards`` (0..1, AA near 1)."""
    a, b = cards
    hi, lo = max(a // 4, b // 4), min(a // 4, b // 4)
    return _PREFLOP[(hi, lo, a % 4 == b % 4)]


def equity(
    hole: tuple[int, ...],
    board: tuple[int, ...],
    rng: random.Random,
    *,
    dead: tuple[int, ...] = (),
    samples: int = 32,
) -> float:
    """Heads-up equity of ``hole`` against one random hand, by Monte Carlo (``dead``:
    cards known to be out, a card sharer's partner's)."""
    deck = [c for c in range(52) if c not in hole and c not in board and c not in dead]
    need = 5 - len(board) + 2
    wins = 0.0
    for _ in range(samples):
        drawn = rng.sample(deck, need)
        full = board + tuple(drawn[2:])
        mine = evaluate7_unchecked(*hole, *full)
        theirs = evaluate7_unchecked(drawn[0], drawn[1], *full)
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return wins / samples


@dataclass
class HandMemory:
    """What the bots of one table remember about the running hand: who bet or raised on
    which street (in order), the dumping pairs' decision for this hand and the dumpers'
    bets made to be lost."""

    hand_id: int
    aggression: list[tuple[int, int]] = field(default_factory=list)  # (street, player)
    voluntary: set[int] = field(default_factory=set)  # put chips in preflop by choice
    dumping: dict[tuple[int, int], bool] = field(default_factory=dict)
    dumps: set[tuple[int, int]] = field(default_factory=set)  # (street, dumper) dumping bets

    def record(self, street: int, player: int, action: str) -> None:
        if action in ("bet", "raise"):
            self.aggression.append((street, player))
        if street == 0 and action in ("call", "bet", "raise"):
            self.voluntary.add(player)

    def last_aggressor(self, street: int) -> int | None:
        return next((p for s, p in reversed(self.aggression) if s == street), None)

    def raised(self, street: int, player: int) -> bool:
        return (street, player) in self.aggression


Decision = tuple[str, int | None]


@dataclass
class Seat:
    """The bot to act: its index in the hand, style and relations to the others."""

    me: int
    style: Style
    relations: dict[int, str]


def _sized(legal: LegalActions, to: int) -> Decision | None:
    if legal.min_to is None or legal.max_to is None:
        return None
    action = "bet" if "bet" in legal.actions else "raise"
    return action, max(legal.min_to, min(legal.max_to, to))


def _passive(legal: LegalActions, *, call: bool) -> Decision:
    if "check" in legal.actions:
        return "check", None
    return ("call", None) if call and "call" in legal.actions else ("fold", None)


def _aggressive_or_call(legal: LegalActions, to: int) -> Decision:
    return _sized(legal, to) or _passive(legal, call=True)


def decide(
    state: HandState, seat: Seat, legal: LegalActions, memory: HandMemory, rng: random.Random
) -> Decision:
    """The action of the bot ``seat`` in ``state`` (whose turn it is)."""
    me, rel = seat.me, seat.relations
    others = [i for i in range(state.player_count) if i != me and state.active[i]]
    giving = False  # a dumper in a dumping hand with the receiver: never bets or raises
    for other in others:
        role = rel.get(other)
        if role not in (DUMPS_TO, DUMPED_TO):
            continue
        pair = (me, other) if role == DUMPS_TO else (other, me)
        if pair not in memory.dumping:
            memory.dumping[pair] = rng.random() < DUMP_RATE
        if memory.dumping[pair]:
            dumped = _dump(state, me, other, role, legal, memory, rng, heads_up=len(others) == 1)
            if dumped is not None:
                return dumped
            if role == DUMPS_TO:
                giving = True
    sharers = [i for i in range(state.player_count) if rel.get(i) == SHARES]
    if sharers:
        shared = _card_sharing(state, seat, legal, memory, rng, sharers, others)
        if shared is not None:
            return shared
    soft = [i for i in others if rel.get(i) == SOFT]
    if soft and len(soft) == len(others):
        return _soft_heads_up(state, seat, legal, rng)
    dead = tuple(c for i in sharers for c in state.hole_cards[i])
    action = honest(state, seat, legal, memory, rng, dead=dead)
    if action[0] == "raise" and rel.get(memory.last_aggressor(state.street) or -1) == SOFT:
        return _passive(legal, call=True)  # a soft player never re-raises the partner
    if giving and action[0] in ("bet", "raise"):
        return _passive(legal, call=True)  # no chips won from the receiver in a dumping hand
    return action


def strength(state: HandState, me: int, rng: random.Random, dead: tuple[int, ...] = ()) -> float:
    hole = state.hole_cards[me]
    return (
        preflop_strength(hole) if state.street == 0 else equity(hole, state.board, rng, dead=dead)
    )


def honest(
    state: HandState,
    seat: Seat,
    legal: LegalActions,
    memory: HandMemory,
    rng: random.Random,
    *,
    dead: tuple[int, ...] = (),
) -> Decision:
    """A style's play on its own cards (and ``dead`` cards it knows are out)."""
    style, me = seat.style, seat.me
    s = strength(state, me, rng, dead)
    roll = rng.random()
    pot = sum(state.committed)
    top = max(state.bets)
    bb = state.config.blinds_or_straddles[-1] if state.config.blinds_or_straddles else 100
    if state.street == 0:
        raises = sum(1 for street, _ in memory.aggression if street == 0)
        if raises == 0:
            if s >= style.raise_pre and roll < max(style.aggression, 0.5):
                return _aggressive_or_call(legal, top + 2 * bb + pot // 2)
            if s >= style.play or "check" in legal.actions:
                return _passive(legal, call=True)
            if roll < style.bluff:
                return _aggressive_or_call(legal, 3 * bb)
            return "fold", None
        if s >= max(style.raise_pre, 0.93) and roll < style.aggression and raises < 4:
            return _aggressive_or_call(legal, 3 * top)
        needed = style.play + 0.06 * raises - (0.0 if style.call_margin >= 0 else 0.1)
        return _passive(legal, call=s >= min(needed, 0.97))
    opponents = sum(1 for i in range(state.player_count) if i != me and state.active[i])
    value = style.value + 0.04 * (opponents - 1)
    if "check" in legal.actions:
        if s >= value and roll < style.aggression:
            return _aggressive_or_call(legal, int(pot * (0.5 + 0.25 * rng.random())))
        if s < 0.4 and roll < style.bluff:
            return _aggressive_or_call(legal, pot // 2)
        return "check", None
    call = legal.call_amount
    odds = call / (pot + call)
    if s >= max(value + 0.12, 0.8) and roll < style.aggression:
        return _aggressive_or_call(legal, 3 * top)
    return _passive(legal, call=s >= odds + style.call_margin)


def _dump(
    state: HandState,
    me: int,
    other: int,
    role: str,
    legal: LegalActions,
    memory: HandMemory,
    rng: random.Random,
    *,
    heads_up: bool,
) -> Decision | None:
    """Chip dumping in a hand the pair chose to dump (None: play honestly).

    The dumper bets or raises big with any hand when heads-up with the receiver, and
    preflop also raises into a pot the receiver entered (to get heads-up with them); it
    folds to the receiver's raise, and facing the receiver's bet calls with a weak hand
    and folds a strong one. The receiver only collects: heads-up it checks to the dumper,
    raises the dumper's bet (which the dumper folds), calls an all-in dumper with a decent
    hand, and calls the dumper's preflop raise in a pot others are still in."""
    street = state.street
    bb = state.config.blinds_or_straddles[-1] if state.config.blinds_or_straddles else 100
    facing = bool(legal.call_amount) and memory.last_aggressor(street) == other
    if role == DUMPS_TO:
        if facing:  # the partner's raise takes the bet; a weak hand shoves, a strong one gives up
            if memory.raised(street, me) or strength(state, me, rng) >= 0.5:
                return _passive(legal, call=False)
            memory.dumps.add((street, me))
            return _aggressive_or_call(legal, legal.max_to or 0)
        if heads_up:
            memory.dumps.add((street, me))
            return _aggressive_or_call(legal, max(state.bets) + bb * rng.randint(15, 40))
        if street == 0 and other in memory.voluntary:  # follow the partner into the pot
            return _passive(legal, call=True)
        return None
    if facing and (street, other) in memory.dumps:  # the dumper's bet to be lost
        if state.stacks[other] == 0:  # no raise to fold to: call a shove with a decent hand
            return _passive(legal, call=strength(state, me, rng) >= 0.5)
        if heads_up and not memory.raised(street, me):
            return _aggressive_or_call(legal, 3 * max(state.bets))
        return _passive(legal, call=strength(state, me, rng) >= 0.5)  # others are still in
    if facing:  # the dumper's own bet (a value bet, say): played honestly
        return None
    if heads_up:
        return _passive(legal, call=True)  # check (or complete the small blind) to the dumper
    return None


def _soft_heads_up(
    state: HandState, seat: Seat, legal: LegalActions, rng: random.Random
) -> Decision:
    """Only soft-play partners left: no bet or raise; the partner's bet is folded unless
    the hand is very strong, and then only called."""
    if "check" in legal.actions:
        return "check", None
    s = strength(state, seat.me, rng)
    return _passive(legal, call=s >= (0.95 if state.street == 0 else 0.85))


def _card_sharing(
    state: HandState,
    seat: Seat,
    legal: LegalActions,
    memory: HandMemory,
    rng: random.Random,
    sharers: list[int],
    others: list[int],
) -> Decision | None:
    """Partners who see each other's cards: the weaker folds preflop (squeezing a third
    player with the stronger when that one is very strong); postflop the weaker folds or
    bets to squeeze for a strong partner. None: play honestly on the shared knowledge."""
    me = seat.me
    live = [i for i in sharers if state.active[i]]
    if not live:
        return None
    third = [i for i in others if i not in sharers]
    if state.street == 0:
        mine = preflop_strength(state.hole_cards[me])
        best = max(live, key=lambda i: (preflop_strength(state.hole_cards[i]), -i))
        if (mine, -me) > (preflop_strength(state.hole_cards[best]), -best):
            if mine >= SQUEEZE and any(i in memory.voluntary for i in third):
                return _aggressive_or_call(legal, 3 * max(state.bets))
            return None
        squeeze = preflop_strength(state.hole_cards[best]) >= SQUEEZE and any(
            i in memory.voluntary for i in third
        )
        if squeeze and not memory.raised(0, me):
            return _aggressive_or_call(legal, 3 * max(state.bets))
        return _passive(legal, call=False)
    dead_for = {
        i: tuple(c for j in (*sharers, me) if j != i for c in state.hole_cards[j])
        for i in (*live, me)
    }
    eq = {i: equity(state.hole_cards[i], state.board, rng, dead=dead_for[i]) for i in (*live, me)}
    best = max(live, key=lambda i: eq[i])
    if eq[me] >= eq[best]:
        return None
    if eq[best] >= 0.75 and third and not memory.raised(state.street, me):
        return _aggressive_or_call(legal, max(state.bets) + sum(state.committed) // 2)
    return _passive(legal, call=False)
