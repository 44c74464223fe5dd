"""How good the detector is, on a room whose truth is known (``simulate_room``).

Pure: from the truth's groups, the ranked pair scores and the ranked suspicions (what the
cases would be), the figures of ``../shared/reference/collusion.md`` section 5, per
scheme: recall (a group is found when one case holds it: a pair case with both players, a
ring case with at least two thirds of the ring), precision of the top ``k`` cases (a case is
true when all its players belong to one colluding group), average precision over the
ranking of every pair (PR-AUC), hands shared when first found (``first_found``, filled
in by the caller's checkpoints), and how many hard negatives (honest friends, households,
tight-passive players, heads-up pairs) are a case of their own in the top ``k``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fraud.detect import PairScore
from fraud.services import Suspicion

COLLUDING = ("chip_dumping", "soft_play", "card_sharing", "ring")
HARD_NEGATIVES = ("friends", "household", "tight_passive", "heads_up")
TOP = 20


@dataclass(frozen=True, slots=True)
class Group:
    scheme: str
    players: frozenset[int]


def groups_of(truth: dict[str, Any]) -> list[Group]:
    """The truth file's groups (``RoomTruth.to_dict()`` of ``fraud.simulation``)."""
    return [Group(g["scheme"], frozenset(g["players"])) for g in truth["groups"]]


def found_by(group: Group, cases: Iterable[Suspicion]) -> bool:
    """Whether one of ``cases`` holds the group (a ring: two thirds of it at least)."""
    for case in cases:
        members = set(case.players)
        if group.scheme == "ring":
            if len(members & group.players) * 3 >= 2 * len(group.players):
                return True
        elif group.players <= members:
            return True
    return False


def is_true(case: Suspicion, groups: Sequence[Group]) -> bool:
    players = set(case.players)
    return any(g.scheme in COLLUDING and players <= g.players for g in groups)


def _pair_label(score: PairScore, groups: Sequence[Group]) -> str | None:
    for g in groups:
        if {score.a, score.b} <= g.players:
            return g.scheme
    return None


def average_precision(ranked_labels: Sequence[bool]) -> float:
    """Average precision of a ranking (the area under its precision-recall curve)."""
    hits, total = 0, 0.0
    for rank, positive in enumerate(ranked_labels, 1):
        if positive:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


@dataclass(slots=True)
class Report:
    hands: int
    pairs_scored: int
    cases: int
    precision_at_top: float
    top: int
    per_scheme: dict[str, dict[str, Any]] = field(default_factory=dict)
    hard_negatives_in_top: dict[str, int] = field(default_factory=dict)
    top_cases: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "pairs_scored": self.pairs_scored,
            "cases": self.cases,
            f"precision_at_{self.top}": self.precision_at_top,
            "per_scheme": self.per_scheme,
            "hard_negatives_in_top": self.hard_negatives_in_top,
            "top_cases": self.top_cases,
        }


def evaluate(
    *,
    truth: dict[str, Any],
    scores: Sequence[PairScore],
    found: Sequence[Suspicion],
    hands: int,
    first_found: dict[int, int] | None = None,
    top: int = TOP,
) -> Report:
    """The figures for one analysed room. ``found`` ranked strongest first; ``first_found``
    maps a group's index in the truth to the hands it had shared when first found."""
    groups = groups_of(truth)
    ranked = sorted(found, key=lambda s: -s.score)
    head = ranked[:top]
    true_head = [is_true(c, groups) for c in head]
    report = Report(
        hands=hands,
        pairs_scored=len(scores),
        cases=len(ranked),
        top=top,
        precision_at_top=sum(true_head) / len(head) if head else 0.0,
    )
    labels = [_pair_label(s, groups) for s in scores]
    for scheme in COLLUDING:
        mine = [(i, g) for i, g in enumerate(groups) if g.scheme == scheme]
        if not mine:
            continue
        ranking = [lab == scheme for lab in labels if lab == scheme or lab not in COLLUDING]
        report.per_scheme[scheme] = {
            "groups": len(mine),
            "recall": sum(found_by(g, ranked) for _, g in mine) / len(mine),
            f"recall_in_top_{top}": sum(found_by(g, head) for _, g in mine) / len(mine),
            "pr_auc": round(average_precision(ranking), 4),
            "hands_to_first_detection": [(first_found or {}).get(i) for i, _ in mine],
        }
    for scheme in HARD_NEGATIVES:
        mine_groups = [g for g in groups if g.scheme == scheme]
        if mine_groups:
            report.hard_negatives_in_top[scheme] = sum(
                any(set(c.players) <= g.players for g in mine_groups) for c in head
            )
    report.top_cases = [
        {"players": list(c.players), "kinds": list(c.kinds), "score": c.score, "true": t}
        for c, t in zip(head, true_head, strict=True)
    ]
    return report


# --- false alarms over many rooms --------------------------------------------------------


def pair_alarms(
    *, truth: dict[str, Any], scores: Sequence[PairScore], case_z: float
) -> dict[str, Any]:
    """One room's pairs at or above ``case_z``: the honest ones (no colluding group holds
    both players; a hard negative is honest) by kind, and the colluding ones by scheme."""
    groups = groups_of(truth)
    styles = {p["user_id"]: p["style"] for p in truth["players"]}
    out: dict[str, Any] = {
        "seed": truth.get("seed"),
        "hands": truth.get("hands", 0),
        "honest_pairs": 0,
        "false_alarms": [],
        "colluding": {},
        "max_honest_z": 0.0,
    }
    for s in scores:
        label = _pair_label(s, groups)
        if label in COLLUDING:
            seen = out["colluding"].setdefault(label, {"pairs": 0, "found": 0, "z": []})
            seen["pairs"] += 1
            seen["found"] += s.score >= case_z
            seen["z"].append(round(s.score, 2))
            continue
        out["honest_pairs"] += 1
        out["max_honest_z"] = max(out["max_honest_z"], round(s.score, 2))
        if s.score >= case_z:
            out["false_alarms"].append(
                {
                    "pair": [s.a, s.b],
                    "styles": [styles.get(s.a), styles.get(s.b)],
                    "group": label,
                    "kinds": list(s.kinds(case_z)),
                    "z": round(s.score, 2),
                    "hands": s.hands,
                }
            )
    return out


def alarms_summary(rooms: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rooms' figures together: the per-pair false-alarm rate (honest pairs at a case
    over honest pairs scored), per kind, and the share of colluding pairs found."""
    honest = sum(r["honest_pairs"] for r in rooms)
    alarms = [a for r in rooms for a in r["false_alarms"]]
    by_kind: dict[str, int] = {}
    for a in alarms:
        for kind in a["kinds"]:
            by_kind[kind] = by_kind.get(kind, 0) + 1
    colluding: dict[str, dict[str, int]] = {}
    for r in rooms:
        for scheme, seen in r["colluding"].items():
            mine = colluding.setdefault(scheme, {"pairs": 0, "found": 0, "z": []})
            mine["pairs"] += seen["pairs"]
            mine["found"] += seen["found"]
            mine["z"] += seen["z"]
    return {
        "rooms": len(rooms),
        "hands": sum(r["hands"] for r in rooms),
        "honest_pairs": honest,
        "false_alarms": len(alarms),
        "false_alarm_rate": len(alarms) / honest if honest else 0.0,
        "false_alarms_by_kind": by_kind,
        "rooms_with_a_false_alarm": sum(1 for r in rooms if r["false_alarms"]),
        "max_honest_z": max((r["max_honest_z"] for r in rooms), default=0.0),
        "colluding_found": {
            k: {**v, "recall": v["found"] / v["pairs"]} for k, v in colluding.items()
        },
        "alarms": alarms,
    }
