"""The detectors on small hand-built rooms (fraud.detect.score_pairs): pure, no database.

The room: eleven bots share a 6-max table for 3,000 hands: a chip-dumping pair, a
card-sharing pair, two honest friends who both play hard (against each other too), a
tight-passive player who rarely raises anyone, and honest regulars. Soft play needs the
partners heads-up often, so it has a short-handed room of its own: six bots at a 4-max
table, a soft pair among them. Chip dumping in short-handed play has a third room, played
by the simulator's bots on the pure engine (``fraud.simulation.pure``).
"""

from __future__ import annotations

import pytest

from fraud.detect import CASE_Z, score_pairs
from fraud.features import PairFacts, aggregate
from fraud.models import Case
from fraud.simulation.pure import room_play
from fraud.simulation.room import RoomSpec, room_plan
from tests.fraud.rooms import Bot, play_room

DUMPER, TAKER = 1, 2
SHARERS = (5, 6)
FRIENDS = (7, 8)
TIGHT_PASSIVE = 9
#: A short-handed room whose honest pairs the flow test against the room took for dumpers.
SHORT_SEED = 6


@pytest.fixture(scope="module")
def scores():
    bots = [Bot(i, threshold=0.45 + 0.02 * (i % 5), aggression=0.4 + 0.1 * (i % 5))
            for i in range(1, 12)]  # fmt: skip
    by_id = {b.id: b for b in bots}
    for a, b, scheme_a, scheme_b in ((DUMPER, TAKER, "dump", "take"),
                                     (*SHARERS, "share", "share")):  # fmt: skip
        by_id[a].scheme, by_id[a].partner = scheme_a, b
        by_id[b].scheme, by_id[b].partner = scheme_b, a
    for friend in FRIENDS:
        by_id[friend].aggression = 0.9
    by_id[TIGHT_PASSIVE].aggression, by_id[TIGHT_PASSIVE].threshold = 0.03, 0.55
    ranked = score_pairs(aggregate(play_room(bots, hands=3_000, seed=2013)))
    return {(s.a, s.b): s for s in ranked}


def test_a_pair_that_dumps_chips_is_found_with_the_flow_from_the_dumper(scores):
    pair = scores[(DUMPER, TAKER)]
    assert pair.z[Case.Kind.CHIP_DUMPING] >= CASE_Z
    assert pair.flow_bb > 0  # from the dumper (a) to the taker (b)


@pytest.fixture(scope="module")
def short_handed():
    bots = [Bot(i, threshold=0.45 + 0.03 * i, aggression=0.5 + 0.1 * (i % 3)) for i in range(1, 7)]
    bots[0].scheme, bots[0].partner = "soft", 2
    bots[1].scheme, bots[1].partner = "soft", 1
    bots[2].aggression = 0.03  # tight-passive: rarely bets or raises anyone
    ranked = score_pairs(aggregate(play_room(bots, hands=2_000, seed=2013, seats=4)))
    return {(s.a, s.b): s for s in ranked}


def test_a_pair_that_spares_each_other_is_found_as_soft_play(short_handed):
    assert short_handed[(1, 2)].kinds(CASE_Z)[0] == Case.Kind.SOFT_PLAY
    others = [s for pair, s in short_handed.items() if pair != (1, 2)]
    assert max(s.score for s in others) < CASE_Z  # the tight-passive player included


def test_a_pair_that_shares_cards_is_found(scores):
    assert scores[SHARERS].kinds(CASE_Z)[0] == Case.Kind.CARD_SHARING


def test_honest_friends_who_play_hard_against_each_other_are_not_flagged(scores):
    assert scores[FRIENDS].score < CASE_Z


def test_a_tight_passive_player_is_not_soft_on_anyone(scores):
    passive = [s for (a, b), s in scores.items() if TIGHT_PASSIVE in (a, b)]
    assert passive and max(s.z[Case.Kind.SOFT_PLAY] for s in passive) < CASE_Z


def test_no_honest_pair_reaches_a_case(scores):
    colluders = {(DUMPER, TAKER), SHARERS}
    in_schemes = {p for pair in colluders for p in pair}
    honest = [s for (a, b), s in scores.items() if not {a, b} & in_schemes]
    assert len(honest) == 21  # the seven honest players' pairs
    assert max(s.score for s in honest) < CASE_Z
    # ...and every colluding pair outranks every honest one.
    assert min(scores[p].score for p in colluders) > max(s.score for s in honest)


@pytest.fixture(scope="module")
def short_handed_room():
    """Six players at three tables (the room of bots whose busted players did not sit
    back in): every table plays two or three handed, an honest strong-against-weak pair
    plays long heads-up matches, and a chip-dumping pair is among them."""
    plan = room_plan(players=6, seed=SHORT_SEED, spec=RoomSpec(
        dump=1, soft=0, share=0, ring=0, friends=0, household=0, tight_passive=0, heads_up=1))  # fmt: skip
    truth, facts = room_play(plan, hands=3_000, tables=3, seed=SHORT_SEED)
    groups = {g["scheme"]: tuple(g["players"]) for g in truth.groups}
    return groups, {(s.a, s.b): s for s in score_pairs(aggregate(facts))}


def test_honest_short_handed_play_is_not_taken_for_chip_dumping(short_handed_room):
    groups, scores = short_handed_room
    honest = [s for pair, s in scores.items() if pair != groups["chip_dumping"]]
    assert scores[groups["heads_up"]].hands >= 500  # they met mostly heads-up
    assert max(s.z[Case.Kind.CHIP_DUMPING] for s in honest) < CASE_Z
    # ...while the dumping pair of the same room is still found, above every honest pair.
    dumping = scores[groups["chip_dumping"]]
    assert dumping.z[Case.Kind.CHIP_DUMPING] >= CASE_Z
    assert dumping.score > max(s.score for s in honest)


def test_two_strong_hands_folded_in_a_handful_of_spots_do_not_make_a_winning_flow_dumping():
    # Heads-up only: 600 hands, 1 bb a hand from 1 to 2 (a weak player losing steadily),
    # and 1 once folded strong hands to 2's raises: 2 of 5 such spots, none elsewhere.
    hands, flow = 600, 1.0
    one = PairFacts(hands=hands, ev_net=flow * hands, ev_clip=flow * hands,
                    ev_clip_sq=10.0 * hands, short=hands, short_ev_clip=flow * hands,
                    short_ev_clip_sq=10.0 * hands, give_opp=5, give_cnt=2)  # fmt: skip
    two = PairFacts(hands=hands, ev_net=-flow * hands, ev_clip=-flow * hands,
                    ev_clip_sq=10.0 * hands, short=hands, short_ev_clip=-flow * hands,
                    short_ev_clip_sq=10.0 * hands, give_opp=200)  # fmt: skip
    [pair] = score_pairs({(1, 2): one, (2, 1): two})
    assert pair.features[Case.Kind.CHIP_DUMPING]["short_handed_flow_t"]["value"] > CASE_Z
    assert pair.z[Case.Kind.CHIP_DUMPING] < CASE_Z
    # ...while a player who folds them at every turn gives chips away.
    one.give_opp, one.give_cnt = 20, 10
    [pair] = score_pairs({(1, 2): one, (2, 1): two})
    assert pair.z[Case.Kind.CHIP_DUMPING] >= CASE_Z
