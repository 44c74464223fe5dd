"""What one finished hand says about each pair of its players, with every card known.

:func:`hand_facts` walks a hand's engine events once and returns, for every ordered pair
(a, b) of players dealt in, what a did toward b:

- ``ev_net``: the chips (in big blinds) that went from a to b, with all-in luck removed
  (``ev_clip`` and ``ev_clip_sq``: the same per hand, at most ``CLIP_BB``, and its square):
  when the betting closed before the river, pots are shared by equity at that moment, not
  by the run-out (all-in EV). Losses are attributed to the winners in proportion to their
  gains. Chip dumping shows as a large one-way ``ev_net`` inside one pair.
- heads-up decisions (only a and b left in the hand): ``soft_opp`` counts a's decisions
  holding a strong hand (by a's own cards: ``STRONG``) where b has not bet (the blinds
  alone may be to call) or b's bet is small (``SMALL_BET`` of the pot at most),
  ``soft_agg`` those where a bet or raised; ``fold_opp`` counts a facing b's small bet with
  a good hand (``GOOD``), ``fold_cnt`` those a folded. Big bets are left out: how often one
  raises or folds against them depends on their size, which differs honestly between
  opponents. Soft play shows as little aggression and many
  folds toward the partner, against the same player's play toward everyone else.
- ``share_t`` / ``share_v``: the card-sharing test. At a's first preflop decision, for
  each b dealt in who has not acted yet, ``s - pi`` is added to ``share_t`` if a folds and
  subtracted if a plays, and ``pi (1 - pi)`` is added to ``share_v``, where s is 1 when b's
  hidden cards are stronger than a's and pi the chance of that for a's starting hand
  against a random one. An honest
  player's fold depends on their own cards and what they saw, never on b's hidden cards,
  so ``share_t`` stays near 0 (z = share_t / sqrt(share_v) is a standard normal); a card
  sharer folds when the partner is stronger and ``share_t`` grows with every such fold.
  Conditioning on the exact starting hand (not a strength band) matters: within a band,
  the weaker hands both fold more and meet stronger partners more, an honest correlation.
- ``short``, ``short_ev_clip``, ``short_ev_clip_sq``: the hand was dealt to at most
  ``SHORT_HANDED`` players, and its clipped flow then. Short-handed, a strong player
  beats a weak one by far more a hand than at a full table, so the chip-dumping test
  judges those hands apart (``fraud.detect``).
- ``give_opp`` / ``give_cnt``: after the flop, a facing b's bet or raise (any size) with a
  strong hand (``STRONG``, by a's own cards), and how often a folded it. Every honest
  style, the loosest and the tightest, calls or raises there; a dumper folds whatever it
  holds to the partner's raise, having bet into them. What a player is worth shows in
  results, not in this count: a weak player loses by calling and betting with the worse
  hand, not by folding the better one.

Evidence: the hands that weigh most for each scheme, with the reason in words, for the
reviewer. Everything here is pure (no query): the same events give the same facts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from itertools import permutations
from typing import TYPE_CHECKING

from fraud.equity import (
    HOLDEM,
    Values,
    chance_stronger,
    heads_up,
    percentiles,
    preflop_strength,
    shares,
    street_values,
)
from poker.engine.cards import format_cards
from poker.engine.events import (
    AntePosted,
    BetPlaced,
    BlindPosted,
    BoardDealt,
    CardsMucked,
    Event,
    HandStarted,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    PotAwarded,
    RaisedTo,
    UncalledBetReturned,
)

if TYPE_CHECKING:
    from handhistory.exports.records import HandRecord

#: The definition of the facts: stored facts (``fraud.facts``) of another version are
#: computed again. Raise it with any change to what :func:`hand_facts` returns.
FACTS_VERSION = 2

#: A hand in the top 15% of what one could hold here is strong: an honest player bets or
#: raises it against anyone, often. Strength is what the player knows from their own cards
#: (``fraud.equity.percentiles``), not the equity against the partner's actual cards: that
#: equity depends on how loosely the partner plays, and would make a loose player's every
#: opponent look soft on them.
STRONG = 0.85
#: Facing a small bet (``SMALL_BET`` of the pot at most) with a hand at least this good, an
#: honest player rarely folds.
GOOD = 0.60
SMALL_BET = 0.75
#: A hand dealt to this many players or fewer is short-handed.
SHORT_HANDED = 3
#: A hand's flow between two players counts at most this much in the chip-dumping test
#: (the flow itself is kept whole): with deep stacks one cooler can move hundreds of big
#: blinds, and a test whose variance one hand dominates finds nothing; dumping is many
#: one-way hands, each of a few dozen big blinds.
CLIP_BB = 50.0
#: Evidence floors: below these a hand is not worth a reviewer's time.
DUMP_EVIDENCE_BB = 20.0
SHARE_EVIDENCE_STRENGTH = 0.58
SOFT_EVIDENCE_STRENGTH = 0.95

STREETS = ("preflop", "flop", "turn", "river")


def _on(street: int) -> str:
    return "preflop" if street == 0 else f"on the {STREETS[street]}"


_DECISIONS = (PlayerFolded, PlayerChecked, PlayerCalled, BetPlaced, RaisedTo)


@dataclass(slots=True)
class PairFacts:
    """What a did toward b in the hands counted (additive: facts of hands add up)."""

    hands: int = 0
    ev_net: float = 0.0
    ev_clip: float = 0.0
    ev_clip_sq: float = 0.0
    soft_opp: int = 0
    soft_agg: int = 0
    fold_opp: int = 0
    fold_cnt: int = 0
    share_t: float = 0.0
    share_v: float = 0.0
    short: int = 0
    short_ev_clip: float = 0.0
    short_ev_clip_sq: float = 0.0
    give_opp: int = 0
    give_cnt: int = 0

    def add(self, other: PairFacts) -> None:
        self.hands += other.hands
        self.ev_net += other.ev_net
        self.ev_clip += other.ev_clip
        self.ev_clip_sq += other.ev_clip_sq
        self.soft_opp += other.soft_opp
        self.soft_agg += other.soft_agg
        self.fold_opp += other.fold_opp
        self.fold_cnt += other.fold_cnt
        self.share_t += other.share_t
        self.share_v += other.share_v
        self.short += other.short
        self.short_ev_clip += other.short_ev_clip
        self.short_ev_clip_sq += other.short_ev_clip_sq
        self.give_opp += other.give_opp
        self.give_cnt += other.give_cnt


#: The counters of a hand's pair (``hands`` aside: every pair dealt in shared the hand).
PAIR_COUNTERS = tuple(f.name for f in fields(PairFacts) if f.name != "hands")


@dataclass(frozen=True, slots=True)
class Evidence:
    player: int
    partner: int
    kind: str
    hand_id: int
    weight: float
    reason: str


@dataclass(slots=True)
class HandFacts:
    """One hand's facts: ``pairs`` holds only the pairs with something beyond having been
    dealt in together (every ordered pair of ``players`` shared the hand: ``aggregate``
    counts that)."""

    hand_id: int
    players: tuple[int, ...] = ()
    pairs: dict[tuple[int, int], PairFacts] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)


def hand_facts(
    *, hand_id: int, player_ids: Sequence[int], usernames: Sequence[str], events: Sequence[Event]
) -> HandFacts:
    """The facts of one finished hand (engine events with every card, in order)."""
    return _Walk(hand_id, player_ids, usernames, events).run()


def facts_of_hands(records: Sequence[HandRecord]) -> list[HandFacts]:
    """The facts of many finished hands (stored records), in order."""
    return [
        hand_facts(
            hand_id=r.hand_id, player_ids=r.player_ids, usernames=r.usernames, events=r.events
        )
        for r in records
    ]


class _Walk:
    """One pass over a hand's events, keeping just what the facts need."""

    def __init__(
        self, hand_id: int, ids: Sequence[int], names: Sequence[str], events: Sequence[Event]
    ) -> None:
        self.hand_id, self.ids, self.names, self.events = hand_id, list(ids), list(names), events
        started = events[0]
        assert isinstance(started, HandStarted)
        self.n = n = len(started.starting_stacks)
        self.bb = float(max((*started.blinds_or_straddles, started.min_bet, 1)))
        self.judged = started.variant in HOLDEM
        self.facts = HandFacts(hand_id, tuple(self.ids))
        self.holes: dict[int, tuple[int, ...]] = {}
        self.board: list[int] = []
        self.street = 0
        self.live = set(range(n))
        self.committed = [0] * n
        self.street_commit = [0] * n
        self.acted_preflop: set[int] = set()
        self.last_aggressor: int | None = None
        self.last_action_street = 0
        self.won = [0] * n
        #: per player: (chips added, street, players in the hand) of their biggest action
        self.biggest: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        self._values: dict[int, Values] = {}
        self._strength: dict[int, list[float]] = {}
        self._preflop: list[float] = []

    # --- equity, computed once per street when a decision needs it ------------------------

    def values(self, street: int) -> Values | None:
        if not self.judged or len(self.holes) < self.n:
            return None
        if street not in self._values:
            board = self.board[: (0, 3, 4, 5)[street]]
            holes = [self.holes[p] for p in range(self.n)]
            self._values[street] = street_values(holes, board, seed=self.hand_id * 4 + street)
        return self._values[street]

    def pair(self, p: int, q: int) -> PairFacts:
        """What p did toward q in this hand (engine indexes)."""
        key = (self.ids[p], self.ids[q])
        facts = self.facts.pairs.get(key)
        if facts is None:
            facts = self.facts.pairs[key] = PairFacts()
        return facts

    def name(self, p: int) -> str:
        return self.names[p] if p < len(self.names) else str(self.ids[p])

    # --- the walk -------------------------------------------------------------------------

    def run(self) -> HandFacts:
        if self.n <= SHORT_HANDED:
            for p, q in permutations(range(self.n), 2):
                self.pair(p, q).short = 1
        for event in self.events:
            if isinstance(event, _DECISIONS):
                self.decide(event)
            elif isinstance(event, HoleCardsDealt):
                self.holes[event.player] = event.cards
            elif isinstance(event, BoardDealt):
                self.board.extend(event.cards)
                self.street = event.street
                self.street_commit = [0] * self.n
                self.last_aggressor = None
            elif isinstance(event, UncalledBetReturned):
                self.committed[event.player] -= event.amount
            elif isinstance(event, CardsMucked):
                self.live.discard(event.player)
            elif isinstance(event, PotAwarded):
                for winner, amount in zip(event.winners, event.amounts, strict=True):
                    self.won[winner] += amount
            elif isinstance(event, (AntePosted, BlindPosted)):
                self.put(event.player, event.amount)
        self.settle()
        return self.facts

    def put(self, p: int, chips: int) -> None:
        self.committed[p] += chips
        self.street_commit[p] += chips

    def decide(self, event: Event) -> None:
        p: int = event.player  # type: ignore[attr-defined]  # only the player events reach decide()
        facing = max(self.street_commit) > self.street_commit[p]
        aggressive = isinstance(event, (BetPlaced, RaisedTo))
        if self.street == 0 and p not in self.acted_preflop:
            self.preflop_fold(p, folded=isinstance(event, PlayerFolded))
        if len(self.live) == 2 and p in self.live:
            self.heads_up(p, event, facing=facing, aggressive=aggressive)
        if facing and self.street > 0 and self.last_aggressor is not None:
            self.give(p, self.last_aggressor, folded=isinstance(event, PlayerFolded))
        added = 0
        if isinstance(event, PlayerFolded):
            self.live.discard(p)
        elif isinstance(event, PlayerCalled):
            added = event.amount
        elif isinstance(event, (BetPlaced, RaisedTo)):
            added = event.amount - self.street_commit[p]
            self.last_aggressor = p
        if added > 0:
            self.track_biggest(p, added)
            self.put(p, added)
        if self.street == 0:
            self.acted_preflop.add(p)
        self.last_action_street = self.street

    def track_biggest(self, p: int, chips: int) -> None:
        """Remembers the player's biggest single action and who was in then (evidence)."""
        if chips > self.biggest.get(p, (0, 0, ()))[0]:
            self.biggest[p] = (chips, self.street, tuple(sorted(self.live)))

    def preflop_fold(self, p: int, *, folded: bool) -> None:
        """The card-sharing test: a fold adds (partner stronger - its chance), a hand played
        (called, raised or checked) subtracts it; both add its variance."""
        if not self.judged or p not in self.holes:
            return
        if not self._preflop:
            self._preflop = [preflop_strength(self.holes.get(x, (0, 1))) for x in range(self.n)]
        mine = self._preflop[p]
        pi = chance_stronger(self.holes[p])
        for q in self.live:
            if q == p or q in self.acted_preflop or q not in self.holes:
                continue
            theirs = self._preflop[q]
            if theirs == mine:
                continue
            facts = self.pair(p, q)
            surprise = (theirs > mine) - pi
            facts.share_t += surprise if folded else -surprise
            facts.share_v += pi * (1.0 - pi)
            if folded and theirs > mine and mine >= SHARE_EVIDENCE_STRENGTH:
                self.facts.evidence.append(
                    Evidence(
                        self.ids[p],
                        self.ids[q],
                        "card_sharing",
                        self.hand_id,
                        mine,
                        f"{self.name(p)} folded {format_cards(self.holes[p])} "
                        f"preflop (a hand winning {mine:.0%} against a random one) before "
                        f"{self.name(q)}, who held the stronger {format_cards(self.holes[q])}, had "
                        "acted.",
                    )
                )

    def strength(self, street: int) -> list[float] | None:
        if not self.judged or len(self.holes) < self.n:
            return None
        if street not in self._strength:
            board = self.board[: (0, 3, 4, 5)[street]]
            holes = [self.holes[p] for p in range(self.n)]
            self._strength[street] = percentiles(holes, board, seed=self.hand_id * 4 + street)
        return self._strength[street]

    def heads_up(self, p: int, event: Event, *, facing: bool, aggressive: bool) -> None:
        q = next(x for x in self.live if x != p)
        strength = self.strength(self.street)
        if strength is None:
            return
        mine = strength[p]
        facts = self.pair(p, q)
        if mine >= STRONG and (self.last_aggressor != q or self.small_bet(p)):
            facts.soft_opp += 1
            if aggressive:
                facts.soft_agg += 1
            elif mine >= SOFT_EVIDENCE_STRENGTH:
                self.soft_evidence(p, q, mine, "checked")
        if facing and self.last_aggressor == q and mine >= GOOD and self.small_bet(p):
            facts.fold_opp += 1
            if isinstance(event, PlayerFolded):
                facts.fold_cnt += 1
                if mine >= SOFT_EVIDENCE_STRENGTH:
                    self.soft_evidence(p, q, mine, "folded to a small bet")

    def give(self, p: int, q: int, *, folded: bool) -> None:
        """The surrender count: p facing q's bet or raise after the flop with a strong
        hand (by p's own cards), and whether p folded it."""
        strength = self.strength(self.street)
        if strength is None or strength[p] < STRONG:
            return
        facts = self.pair(p, q)
        facts.give_opp += 1
        if folded:
            facts.give_cnt += 1
            put_in = self.committed[p] / self.bb
            self.facts.evidence.append(
                Evidence(
                    self.ids[p],
                    self.ids[q],
                    "chip_dumping",
                    self.hand_id,
                    put_in,
                    f"{self.name(p)} folded {format_cards(self.holes[p])} "
                    f"(better than {strength[p]:.1%} of hands) to {self.name(q)}'s bet "
                    f"{_on(self.street)}, having put in {put_in:.1f} bb.",
                )
            )

    def small_bet(self, p: int) -> bool:
        """Whether the bet p faces is at most ``SMALL_BET`` of the pot before it (folds to
        big bets depend on their size, which differs from opponent to opponent)."""
        to_call = max(self.street_commit) - self.street_commit[p]
        return to_call <= SMALL_BET * (sum(self.committed) - to_call)

    def soft_evidence(self, p: int, q: int, mine: float, what: str) -> None:
        values = self.values(self.street)
        odds = f", {heads_up(values, p, q):.0%} to win" if values is not None else ""
        self.facts.evidence.append(
            Evidence(
                self.ids[p],
                self.ids[q],
                "soft_play",
                self.hand_id,
                mine,
                f"{self.name(p)} held {format_cards(self.holes[p])} (better than {mine:.1%} "
                f"of hands{odds}) heads-up against {self.name(q)}'s "
                f"{format_cards(self.holes[q])} and {what} {_on(self.street)}.",
            )
        )

    # --- the money --------------------------------------------------------------------------

    def settle(self) -> None:
        """Each pair's chip flow, by equity where the board ran out after the betting."""
        expected = [float(w) for w in self.won]
        ran_out = len(self.live) >= 2 and self.last_action_street < len(self.board_streets()) - 1
        values = self.values(self.last_action_street) if ran_out else None
        if values is not None:
            expected = self.expected_won(values)
        net = [expected[p] - self.committed[p] for p in range(self.n)]
        gains = sum(x for x in net if x > 0)
        if gains <= 0:
            return
        flow = {}  # (loser, winner) -> chips
        for p in range(self.n):
            if net[p] >= 0:
                continue
            for q in range(self.n):
                if net[q] > 0:
                    flow[(p, q)] = -net[p] * net[q] / gains
        short = self.n <= SHORT_HANDED
        for (a, b), chips in flow.items():  # a lost, b gained: they are never both ways
            x = chips / self.bb
            clipped = min(x, CLIP_BB)
            for p, q, sign in ((a, b, 1.0), (b, a, -1.0)):
                facts = self.pair(p, q)
                facts.ev_net += sign * x
                facts.ev_clip += sign * clipped
                facts.ev_clip_sq += clipped * clipped
                if short:
                    facts.short_ev_clip += sign * clipped
                    facts.short_ev_clip_sq += clipped * clipped
            if x >= DUMP_EVIDENCE_BB:
                self.dump_evidence(a, b, x, ran_out)

    def board_streets(self) -> list[int]:
        return [s for s, size in enumerate((0, 3, 4, 5)) if len(self.board) >= size]

    def expected_won(self, values: Values) -> list[float]:
        """Each player's pot winnings by equity: side pots layered by the live players'
        commitments, scaled by what was awarded (the rake)."""
        live = sorted(self.live)
        awarded = sum(self.won)
        total = sum(self.committed)
        out = [0.0] * self.n
        floor = 0
        for level in sorted({self.committed[p] for p in live}):
            layer = sum(min(max(c - floor, 0), level - floor) for c in self.committed)
            eligible = [p for p in live if self.committed[p] >= level]
            for p, share in shares(values, eligible).items():
                out[p] += layer * share
            floor = level
        scale = awarded / total if total else 0.0
        return [x * scale for x in out]

    def dump_evidence(self, a: int, b: int, bb: float, ran_out: bool) -> None:
        chips, street, live = self.biggest.get(a, (0, 0, ()))
        how = ""
        if chips:
            values = self.values(street) if a in live else None
            odds = f" with {shares(values, live)[a]:.0%} equity" if values is not None else ""
            how = f"; {self.name(a)} put in {chips / self.bb:.1f} bb at once {_on(street)}{odds}"
        cards = ""
        if a in self.holes and b in self.holes:
            cards = f" ({format_cards(self.holes[a])} against {format_cards(self.holes[b])})"
        luck = " by all-in equity" if ran_out else ""
        self.facts.evidence.append(
            Evidence(
                self.ids[a],
                self.ids[b],
                "chip_dumping",
                self.hand_id,
                bb,
                f"{self.name(a)} lost {bb:.1f} bb to {self.name(b)}{luck}{cards}{how}.",
            )
        )


def aggregate(facts: Iterable[HandFacts]) -> dict[tuple[int, int], PairFacts]:
    """The facts of many hands summed per ordered pair (what the aggregates store)."""
    pairs: dict[tuple[int, int], PairFacts] = defaultdict(PairFacts)
    together: Counter[tuple[int, int]] = Counter()
    for hand in facts:
        together.update(permutations(hand.players, 2))
        for key, pair in hand.pairs.items():
            pairs[key].add(pair)
    for key, hands in together.items():
        pairs[key].hands += hands
    return dict(pairs)
