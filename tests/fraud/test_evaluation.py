"""The detector's figures on a known truth (fraud.evaluation): pure, no database."""

from __future__ import annotations

import pytest

from fraud.detect import PairScore
from fraud.evaluation import (
    Group,
    alarms_summary,
    average_precision,
    evaluate,
    found_by,
    pair_alarms,
)
from fraud.services import Suspicion

TRUTH = {
    "seed": 1,
    "groups": [
        {"scheme": "chip_dumping", "players": [1, 2]},
        {"scheme": "soft_play", "players": [3, 4]},
        {"scheme": "ring", "players": [5, 6, 7]},
        {"scheme": "friends", "players": [8, 9]},
    ],
}


def case(*players, score=6.0, ring=False):
    return Suspicion(players=players, kinds=("ring" if ring else "chip_dumping",), score=score,
                     ring=ring)  # fmt: skip


def pair(a, b, score):
    return PairScore(a=a, b=b, hands=100, z={"chip_dumping": score}, features={}, flow_bb=0.0)


def test_average_precision_is_the_mean_precision_at_each_hit():
    assert average_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([False, False]) == 0.0
    assert average_precision([True, True]) == 1.0


def test_a_ring_is_found_by_a_case_holding_two_thirds_of_it_and_a_pair_only_whole():
    ring = Group("ring", frozenset({5, 6, 7}))
    assert found_by(ring, [case(5, 6, ring=True)])
    assert not found_by(ring, [case(5, 10, ring=True)])
    dump = Group("chip_dumping", frozenset({1, 2}))
    assert found_by(dump, [case(2, 1)])
    assert not found_by(dump, [case(1, 3)])


def test_evaluate_counts_recall_precision_and_the_hard_negatives_in_the_top():
    found = [case(1, 2, score=9), case(8, 9, score=8), case(5, 6, 7, score=7, ring=True),
             case(3, 10, score=5)]  # fmt: skip
    scores = [pair(1, 2, 9), pair(8, 9, 8), pair(5, 6, 7), pair(3, 4, 6.5), pair(3, 10, 5)]
    report = evaluate(truth=TRUTH, scores=scores, found=found, hands=1000,
                      first_found={0: 120}, top=3)  # fmt: skip
    assert report.precision_at_top == pytest.approx(2 / 3)  # the friends are not true
    assert report.per_scheme["chip_dumping"]["recall"] == 1.0
    assert report.per_scheme["chip_dumping"]["hands_to_first_detection"] == [120]
    assert report.per_scheme["soft_play"]["recall"] == 0.0  # scored, but no case holds it
    assert report.per_scheme["soft_play"]["pr_auc"] == pytest.approx(1 / 2)  # 2nd of the 3 kept
    assert report.per_scheme["ring"]["recall_in_top_3"] == 1.0
    assert report.hard_negatives_in_top == {"friends": 1}


def test_false_alarms_count_honest_pairs_at_a_case_and_colluding_pairs_found():
    truth = {**TRUTH, "players": [{"user_id": i, "style": "tight"} for i in range(1, 11)],
             "hands": 500}  # fmt: skip
    scores = [pair(1, 2, 9), pair(3, 4, 2), pair(8, 9, 6), pair(1, 10, 3), pair(5, 6, 5.5)]
    room = pair_alarms(truth=truth, scores=scores, case_z=5.0)
    assert room["honest_pairs"] == 2 and room["max_honest_z"] == 6  # friends are honest
    assert [a["pair"] for a in room["false_alarms"]] == [[8, 9]]
    assert room["colluding"]["soft_play"] == {"pairs": 1, "found": 0, "z": [2]}
    summary = alarms_summary([room, {**room, "false_alarms": []}])
    assert summary["false_alarm_rate"] == pytest.approx(1 / 4)
    assert summary["rooms_with_a_false_alarm"] == 1
    assert summary["colluding_found"]["chip_dumping"] == {
        "pairs": 2,
        "found": 2,
        "z": [9, 9],
        "recall": 1.0,
    }
    assert summary["false_alarms_by_kind"] == {"chip_dumping": 1}
