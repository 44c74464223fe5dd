"""The detectors: each pair's scores against the room, and rings as communities of pairs.

Every score is a z-score (standard deviations away from what an honest pair shows), so the
three schemes share one scale and one threshold, set from the per-pair false-positive rate
a room can afford (1,770 pairs among 60 players: a z of 5 is about one chance in three
million per pair for a normal tail; real tails are fatter, hence the margin):

- **chip dumping**: two tests, each on its own hands. Hands dealt to four or more: the
  mean chip flow (all-in EV, big blinds per shared hand, each hand's at most ``CLIP_BB``)
  from one player to the other, less what their results against everyone else (in such
  hands) predict (a strong player beats a weak one honestly), over its standard error:
  the pair's own hands' spread plus the uncertainty of that prediction, each player's
  rate shrunk toward an even one by a prior of ``SKILL_SD`` (a t statistic: one big pot
  is not a pattern, a hundred one-way pots are; a baseline of a few hands predicts
  nothing, and is not taken as a prediction of zero). Short-handed hands (three players
  or fewer): there a strong player beats a weak one by far more a hand, and a pair that
  plays mostly each other has no baseline at all, so the flow alone judges nothing; the
  test is the weaker of the flow's t (against no flow) and how much more often the
  player who gives folds a strong hand to the other's bet after the flop than the same
  player does against everyone else (no honest style does; a dumper folds whatever it
  holds to the partner's raise). The pair's score is the stronger of the two tests, or
  of both together (their z summed over sqrt 2) when they point the same way.
- **soft play**: how much less often each bets or raises a strong hand heads-up against
  the other than against everyone else, and how much more often each folds a good hand to
  the other's small bet; each a binomial z against the player's own rate elsewhere,
  combined per direction, and the pair's score is the weaker direction's (times sqrt 2):
  soft play is mutual, while an honest player may look soft on one opponent whose betting
  differs.
- **card sharing**: the preflop fold test of ``fraud.features`` in both directions.

A pair with a score at or above ``CASE_Z`` becomes a suspicion. The pairs at or above
``EDGE_Z`` form a weighted graph; its communities (Louvain, networkx), each cut to the
players linked to two others in it at least, of three or more players become ring
suspicions, which take the place of their pairs' own cases.
Shared addresses and devices are gathered as context for the reviewer and never change
a score.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import networkx as nx
from django.contrib.auth import get_user_model
from django.db.models import Count

from fraud.features import PairFacts
from fraud.models import Case, PairEvidence, PairStat
from fraud.services import Suspicion
from handhistory.models import Event

#: Shared hands before a pair is judged at all.
MIN_HANDS = 40
#: A pair this many standard deviations from honest play is a case.
CASE_Z = 5.0
#: Pairs linked this strongly join the graph in which rings are found.
EDGE_Z = 4.0
#: Prior weight (in decisions) of the room's rate in a player's own rate: a player seen in
#: few spots is judged mostly by the room's play.
PRIOR = 20.0
#: A flow this small (big blinds) is not chip dumping, whatever its regularity.
MIN_DUMP_BB = 50.0
#: Prior spread (big blinds per opponent-hand) of the rate at which honest players win or
#: lose: a player's measured rate is shrunk toward zero by it, so a thin baseline predicts
#: little and the prediction's own uncertainty widens the test's standard error.
SKILL_SD = 0.5
#: Folds of a strong hand to the other's bet before the surrender test counts: even an
#: honest player folds a set to a raise on a four-flush board now and then, and in a room
#: whose honest players (bots) never do, one or two such folds would weigh like a pattern.
MIN_GIVES = 3
EVIDENCE_PER_KIND = 5

_FIELDS = tuple(f.name for f in fields(PairFacts))
KINDS = (Case.Kind.CHIP_DUMPING, Case.Kind.SOFT_PLAY, Case.Kind.CARD_SHARING)


@dataclass(frozen=True, slots=True)
class PairScore:
    """One unordered pair, ``a < b``."""

    a: int
    b: int
    hands: int
    z: dict[str, float]
    features: dict[str, dict[str, dict[str, float | None]]]
    #: Big blinds a gave b (negative: b gave a), all-in luck removed.
    flow_bb: float

    @property
    def score(self) -> float:
        return max(self.z.values(), default=0.0)

    def kinds(self, at: float) -> tuple[str, ...]:
        ranked = sorted(self.z.items(), key=lambda kv: -kv[1])
        return tuple(kind for kind, z in ranked if z >= at)


@dataclass(slots=True)
class _Totals:
    """A player's counts against everyone (the baseline each pair is compared with), and
    toward each partner."""

    all: PairFacts = field(default_factory=PairFacts)
    by_partner: dict[int, PairFacts] = field(default_factory=dict)


def pair_scores(*, min_hands: int = MIN_HANDS) -> list[PairScore]:
    """Every pair counted in the database with ``min_hands`` shared hands, scored."""
    stats = {
        (row.player_id, row.partner_id): PairFacts(**{f: getattr(row, f) for f in _FIELDS})
        for row in PairStat.objects.all().iterator(chunk_size=5000)
    }
    return score_pairs(stats, min_hands=min_hands)


def score_pairs(
    stats: Mapping[tuple[int, int], PairFacts], *, min_hands: int = MIN_HANDS
) -> list[PairScore]:
    """Every pair of ``stats`` (ordered pairs, as ``fraud.features.aggregate`` sums them)
    with at least ``min_hands`` shared hands, scored; strongest first."""
    totals: dict[int, _Totals] = defaultdict(_Totals)
    for (player, partner), row in stats.items():
        totals[player].all.add(row)
        totals[player].by_partner[partner] = row
    room = PairFacts()
    for t in totals.values():
        room.add(t.all)
    room_agg, room_fold = _rate(room.soft_agg, room.soft_opp), _rate(room.fold_cnt, room.fold_opp)
    room_give = _rate(room.give_cnt, room.give_opp)
    scores = []
    for a, ta in totals.items():
        for b, ab in ta.by_partner.items():
            if a >= b or ab.hands < min_hands or a not in totals[b].by_partner:
                continue
            ba = totals[b].by_partner[a]
            scores.append(
                _score(a, b, ab, ba, ta.all, totals[b].all, room_agg, room_fold, room_give)
            )
    scores.sort(key=lambda s: -s.score)
    return scores


def _rate(k: float, n: float) -> float:
    return k / n if n else 0.0


def _score(
    a: int,
    b: int,
    ab: PairFacts,
    ba: PairFacts,
    ta: PairFacts,
    tb: PairFacts,
    room_agg: float,
    room_fold: float,
    room_give: float,
) -> PairScore:
    n = ab.hands
    long_t, expected = _long_flow(ab, ba, ta, tb)
    short_z, short_t, gives = _short_flow(ab, ba, ta, tb, room_give)
    # The two tests judge different hands: when they point the same way, together (Stouffer).
    both = (abs(long_t) + short_z) / math.sqrt(2.0) if long_t * short_t > 0 else 0.0
    dump = max(abs(long_t), short_z, both) if abs(ab.ev_net) >= MIN_DUMP_BB else 0.0
    # Soft play: each direction against the player's own play elsewhere.
    # Soft play is mutual: each spares the other. An honest player can look soft on one
    # opponent whose way of betting differs; both looking soft on each other is the scheme.
    soft = math.sqrt(2.0) * min(
        _soft(ab, ta, room_agg, room_fold), _soft(ba, tb, room_agg, room_fold)
    )
    # Card sharing: the preflop fold test, both ways.
    share = (_z(ab.share_t, ab.share_v) + _z(ba.share_t, ba.share_v)) / math.sqrt(2.0)
    features: dict[str, dict[str, dict[str, float | None]]] = {
        Case.Kind.CHIP_DUMPING: {
            "hands": _f(n),
            "flow_bb_per_100": _f(100 * ab.ev_net / n),
            "clipped_flow_bb_per_100": _f(100 * ab.ev_clip / n, 100 * expected),
            "flow_t": _f(long_t),
            "short_handed_share": _f(ab.short / n),
            "short_handed_flow_t": _f(short_t),
            "folds_strong_hand_to_bet": _f(*gives),
        },
        Case.Kind.SOFT_PLAY: {
            "aggression_with_strong_hands": _f(
                _rate(ab.soft_agg + ba.soft_agg, ab.soft_opp + ba.soft_opp),
                _rate(
                    ta.soft_agg + tb.soft_agg - ab.soft_agg - ba.soft_agg,
                    ta.soft_opp + tb.soft_opp - ab.soft_opp - ba.soft_opp,
                ),
            ),
            "strong_spots": _f(ab.soft_opp + ba.soft_opp),
            "fold_good_hand_to_bet": _f(
                _rate(ab.fold_cnt + ba.fold_cnt, ab.fold_opp + ba.fold_opp),
                _rate(
                    ta.fold_cnt + tb.fold_cnt - ab.fold_cnt - ba.fold_cnt,
                    ta.fold_opp + tb.fold_opp - ab.fold_opp - ba.fold_opp,
                ),
            ),
            "facing_bet_spots": _f(ab.fold_opp + ba.fold_opp),
        },
        Case.Kind.CARD_SHARING: {
            "fold_when_partner_stronger_z": _f(share, 0.0),
        },
    }
    return PairScore(
        a=a,
        b=b,
        hands=n,
        flow_bb=ab.ev_net,
        features=features,
        z={Case.Kind.CHIP_DUMPING: dump, Case.Kind.SOFT_PLAY: soft, Case.Kind.CARD_SHARING: share},
    )


def _long_flow(ab: PairFacts, ba: PairFacts, ta: PairFacts, tb: PairFacts) -> tuple[float, float]:
    """The flow test on the hands dealt to four or more: (t, the flow a to b that the two
    players' results elsewhere predict, bb per hand)."""
    n = ab.hands - ab.short
    if n <= 0:
        return 0.0, 0.0
    # a's mean loss per opponent-hand elsewhere, and b's: a strong player beats a weak one.
    rate_a, var_a = _skill(_long(ta), _long(ab))
    rate_b, var_b = _skill(_long(tb), _long(ba))
    expected = (rate_a - rate_b) / 2
    # Per-hand flows are clipped (fraud.features.CLIP_BB): one deep cooler is not a pattern.
    total, squares = _long(ab)[1:]
    mean = total / n
    var = max(squares / n - mean * mean, 0.0) + 1.0  # +1 bb^2: no zero variance
    return (mean - expected) / math.sqrt(var / n + (var_a + var_b) / 4), expected


def _long(f: PairFacts) -> tuple[float, float, float]:
    """(hands, clipped flow, its squares) of ``f``'s hands dealt to four or more."""
    return (f.hands - f.short, f.ev_clip - f.short_ev_clip, f.ev_clip_sq - f.short_ev_clip_sq)


def _skill(
    total: tuple[float, float, float], pair: tuple[float, float, float]
) -> tuple[float, float]:
    """A player's mean loss per opponent-hand outside the pair and its variance, shrunk
    toward zero by the prior ``SKILL_SD`` (no hands elsewhere: zero, with the prior's
    whole variance)."""
    h, s, q = (x - y for x, y in zip(total, pair, strict=True))
    if h <= 0:
        return 0.0, SKILL_SD**2
    var = max(q / h - (s / h) ** 2, 0.0) + 1.0
    precision = h / var + 1.0 / SKILL_SD**2
    return (s / var) / precision, 1.0 / precision


def _short_flow(
    ab: PairFacts, ba: PairFacts, ta: PairFacts, tb: PairFacts, room_give: float
) -> tuple[float, float, tuple[float, float]]:
    """The test of the short-handed hands: (z, the flow's t, the giver's rate of folding a
    strong hand to the other's bet and that player's rate elsewhere)."""
    n = ab.short
    if n == 0:
        return 0.0, 0.0, (0.0, 0.0)
    mean = ab.short_ev_clip / n
    var = max(ab.short_ev_clip_sq / n - mean * mean, 0.0) + 1.0
    t = mean / math.sqrt(var / n)
    mine, total = (ab, ta) if t >= 0 else (ba, tb)
    k_else, n_else = total.give_cnt - mine.give_cnt, total.give_opp - mine.give_opp
    gives = (_rate(mine.give_cnt, mine.give_opp), _rate(k_else, n_else))
    if n < MIN_HANDS or mine.give_cnt < MIN_GIVES:
        return 0.0, t, gives
    surrender = -_deficit(mine.give_cnt, mine.give_opp, k_else, n_else, room_give)
    return min(abs(t), surrender), t, gives


def _soft(mine: PairFacts, total: PairFacts, room_agg: float, room_fold: float) -> float:
    """How soft one player is on the other: fewer bets and raises with strong hands, more
    folds of good hands, than the same player's play against everyone else (z)."""
    parts = []
    if mine.soft_opp:
        parts.append(
            _deficit(
                mine.soft_agg,
                mine.soft_opp,
                total.soft_agg - mine.soft_agg,
                total.soft_opp - mine.soft_opp,
                room_agg,
            )
        )
    if mine.fold_opp:
        parts.append(
            -_deficit(
                mine.fold_cnt,
                mine.fold_opp,
                total.fold_cnt - mine.fold_cnt,
                total.fold_opp - mine.fold_opp,
                room_fold,
            )
        )
    return sum(parts) / math.sqrt(len(parts)) if parts else 0.0


def _f(value: float, baseline: float | None = None) -> dict[str, float | None]:
    return {"value": round(value, 4), "baseline": None if baseline is None else round(baseline, 4)}


def _z(t: float, v: float) -> float:
    return t / math.sqrt(v) if v > 0 else 0.0


def _deficit(k: int, n: int, k_else: int, n_else: int, room: float) -> float:
    """How far below the player's rate elsewhere ``k`` of ``n`` is, in standard deviations
    (positive: fewer than expected). The rate elsewhere leans on the room's when thin."""
    if n == 0:
        return 0.0
    p = (k_else + PRIOR * room) / (n_else + PRIOR)
    p = min(max(p, 0.02), 0.98)
    return (n * p - k) / math.sqrt(n * p * (1 - p))


# --- suspicions ----------------------------------------------------------------------------


def suspicions(
    scores: Sequence[PairScore], *, case_z: float = CASE_Z, edge_z: float = EDGE_Z
) -> list[Suspicion]:
    """Pair and ring suspicions from the scored pairs, with evidence and context."""
    linked = [s for s in scores if s.score >= edge_z]
    graph = nx.Graph()
    for s in linked:
        graph.add_edge(s.a, s.b, weight=s.score)
    rings = []
    for community in nx.community.louvain_communities(graph, weight="weight", seed=0):
        # A ring member works with at least two others in it: a player linked to one member
        # only (an honest regular who looks odd against one colluder) is not in the ring.
        core = nx.k_core(graph.subgraph(community), 2)
        if len(core) >= 3:
            rings.append(sorted(core))
    in_ring = {p: i for i, ring in enumerate(rings) for p in ring}
    by_pair = {(s.a, s.b): s for s in linked}
    out: list[Suspicion] = []
    for ring in rings:
        members = [by_pair[(a, b)] for a in ring for b in ring if (a, b) in by_pair]
        if not any(m.score >= case_z for m in members):
            continue
        out.append(_ring_suspicion(ring, members))
    for s in scores:
        if s.score < case_z:
            break
        if in_ring.get(s.a, -1) == in_ring.get(s.b, -2):
            continue  # inside a ring: the ring's case holds it
        out.append(_pair_suspicion(s))
    _attach_context(out)
    return out


def _pair_suspicion(s: PairScore) -> Suspicion:
    kinds = s.kinds(CASE_Z) or (max(s.z, key=lambda k: s.z[k]),)
    giver, taker = (s.a, s.b) if s.flow_bb >= 0 else (s.b, s.a)
    return Suspicion(
        players=(s.a, s.b),
        kinds=kinds,
        score=round(s.score, 3),
        hands_together=s.hands,
        features={k: v for k, v in s.features.items()},
        evidence=_evidence([(s.a, s.b)], kinds),
        chip_flow=[{"from": giver, "to": taker, "big_blinds": round(abs(s.flow_bb), 1)}],
        pairs=[_pair_row(s)],
    )


def _ring_suspicion(ring: list[int], members: list[PairScore]) -> Suspicion:
    kinds = {k for m in members for k in m.kinds(EDGE_Z)}
    ordered = tuple(k for k in KINDS if k in kinds)
    strongest = max(members, key=lambda m: m.score)
    return Suspicion(
        players=tuple(ring),
        kinds=(Case.Kind.RING, *ordered),
        score=round(max(m.score for m in members), 3),
        hands_together=min(m.hands for m in members),
        ring=True,
        features=strongest.features,
        evidence=_evidence([(m.a, m.b) for m in members], ordered),
        chip_flow=[
            {
                "from": m.a if m.flow_bb >= 0 else m.b,
                "to": m.b if m.flow_bb >= 0 else m.a,
                "big_blinds": round(abs(m.flow_bb), 1),
            }
            for m in members
        ],
        pairs=[_pair_row(m) for m in members],
    )


def _pair_row(s: PairScore) -> dict[str, Any]:
    return {
        "a": s.a,
        "b": s.b,
        "score": round(s.score, 3),
        "hands": s.hands,
        "kinds": list(s.kinds(EDGE_Z)),
        "z": {k: round(v, 2) for k, v in s.z.items()},
    }


def _evidence(pairs: Iterable[tuple[int, int]], kinds: Iterable[str]) -> list[dict[str, Any]]:
    """The heaviest hands of each kind between the players, both directions."""
    rows: list[dict[str, Any]] = []
    for kind in kinds:
        if kind == Case.Kind.RING:
            continue
        found: list[dict[str, Any]] = []
        for a, b in pairs:
            for player, partner in ((a, b), (b, a)):
                found.extend(
                    dict(row)
                    for row in PairEvidence.objects.filter(
                        player_id=player, partner_id=partner, kind=kind
                    )
                    .order_by("-weight")
                    .values("hand_id", "kind", "weight", "reason")[:EVIDENCE_PER_KIND]
                )
        found.sort(key=lambda e: -e["weight"])
        hands: set[int] = set()
        for e in found:  # a hand once (its heaviest reason), up to EVIDENCE_PER_KIND hands
            if e["hand_id"] not in hands and len(hands) < EVIDENCE_PER_KIND:
                hands.add(e["hand_id"])
                rows.append({**e, "weight": round(e["weight"], 3)})
    return rows


def _attach_context(found: list[Suspicion]) -> None:
    """Shared addresses and devices among each suspicion's players (context only)."""
    players = sorted({p for s in found for p in s.players})
    if not players:
        return
    seen = (
        Event.objects.filter(actor_id__in=players)
        .values("actor_id", "client_ip", "device_id")
        .annotate(n=Count("position"))
    )
    ips: dict[str, set[int]] = defaultdict(set)
    devices: dict[str, set[int]] = defaultdict(set)
    for row in seen:
        if row["client_ip"]:
            ips[row["client_ip"]].add(row["actor_id"])
        if row["device_id"]:
            devices[row["device_id"]].add(row["actor_id"])
    names = dict(get_user_model().objects.filter(pk__in=players).values_list("pk", "username"))
    for s in found:
        members = set(s.players)
        shared_ips = sorted(ip for ip, who in ips.items() if len(who & members) >= 2)
        shared_devices = sorted(d for d, who in devices.items() if len(who & members) >= 2)
        s.context.update(
            {
                "usernames": [names.get(p, str(p)) for p in s.players],
                "shared_addresses": shared_ips,
                "shared_devices": shared_devices,
            }
        )
