"""What one hand says about each pair (fraud.features): pure, no database."""

from __future__ import annotations

import pytest

from fraud.equity import chance_stronger, percentiles, preflop_strength
from fraud.features import STRONG, aggregate, hand_facts
from poker.engine.cards import parse_cards
from poker.engine.config import HandConfig
from poker.engine.deck import FixedDeck
from poker.engine.events import Event
from poker.engine.game import act, showdown_auto, start_hand
from poker.engine.state import SHOWDOWN

BB = 100


def scripted(holes: list[str], board: str, actions: list[tuple[str, int | None]],
             stack: int = 100 * BB) -> list[Event]:  # fmt: skip
    """Plays ``actions`` (by whoever is to act) on a deck that deals ``holes`` then
    ``board``; after the script, everyone checks or calls to the end."""
    cards = [c for h in holes for c in parse_cards(h)] + list(parse_cards(board))
    n = len(holes)
    config = HandConfig(variant="NT", starting_stacks=(stack,) * n,
                        blinds_or_straddles=(BB // 2, BB) + (0,) * (n - 2), min_bet=BB)  # fmt: skip
    state, events = start_hand(config, FixedDeck(cards))
    script = list(actions)
    while not state.is_over:
        if state.phase == SHOWDOWN:
            state, more = showdown_auto(state)
        else:
            assert state.actor is not None
            action, amount = script.pop(0) if script else ("call", None)
            if not script and action == "call" and max(state.bets) == state.bets[state.actor]:
                action = "check"
            state, more = act(state, state.actor, action, amount)
        events.extend(more)
    assert not script, "the hand ended before the script did"
    return events


def facts(events: list[Event], ids: tuple[int, ...] = (11, 12, 13)):
    ids = ids[: len(events[0].starting_stacks)]
    return hand_facts(hand_id=7, player_ids=ids, usernames=[f"u{i}" for i in ids], events=events)


def pairs(events: list[Event], ids: tuple[int, ...] = (11, 12, 13)):
    """Every ordered pair's facts for the hand (as the aggregates count them)."""
    return aggregate([facts(events, ids)])


def test_all_in_luck_is_removed_from_the_chip_flow():
    # Heads-up: player 1 (button, small blind) shoves 7-2, player 0 calls with aces; the
    # board makes 7-2 a full house, but the flow follows the equity when the chips went in.
    events = scripted(["AsAh", "7c2d"], "7h7d2s9c3h", [("raise", 100 * BB), ("call", None)])
    f = pairs(events, ids=(11, 12))
    seven_two_to_aces = f[(12, 11)].ev_net
    assert 55 < seven_two_to_aces < 95  # ~ 100 bb x (0.87 - 0.13)... as drawn by the sampler
    assert f[(11, 12)].ev_net == pytest.approx(-seven_two_to_aces)
    assert f[(12, 11)].hands == 1


def test_chips_folded_to_a_bet_flow_to_the_bettor():
    # Three players: the button folds, the small blind raises to 4 bb, the big blind folds.
    events = scripted(["9c8c", "KdQd", "3s2h"], "AsKsQh5c4d",
                      [("fold", None), ("raise", 4 * BB), ("fold", None)])  # fmt: skip
    f = pairs(events)
    assert f[(12, 11)].ev_net == pytest.approx(1.0)  # the big blind's 1 bb went to the SB
    assert f[(13, 11)].ev_net == 0.0  # the button put nothing in
    assert f[(13, 12)].hands == 1


def test_a_preflop_fold_before_a_stronger_hidden_hand_acts_counts_for_the_card_sharing_test():
    # The button (player 2) acts first preflop and folds K-Q while the big blind (player 1)
    # holds aces, still to act; the small blind (player 0) holds 7-2.
    events = scripted(["7c2d", "AsAh", "KhQh"], "9c8c3d4s5h",
                      [("fold", None), ("fold", None)])  # fmt: skip
    f = pairs(events)
    kq = parse_cards("KhQh")
    pi = chance_stronger(kq)
    assert f[(13, 12)].share_t == pytest.approx(1 - pi)  # aces were stronger
    assert f[(13, 11)].share_t == pytest.approx(0 - pi)  # 7-2 was not
    assert f[(13, 12)].share_v == pytest.approx(pi * (1 - pi))
    # The small blind folded after the button acted: only the big blind was still to act.
    assert f[(11, 13)].share_v == 0.0
    assert f[(11, 12)].share_t == pytest.approx(1 - chance_stronger(parse_cards("7c2d")))
    [evidence] = [e for e in facts(events).evidence if e.kind == "card_sharing"]
    assert (evidence.player, evidence.partner) == (13, 12)
    assert "KhQh" in evidence.reason and "AsAh" in evidence.reason


def test_checking_a_strong_hand_heads_up_is_a_soft_play_spot_and_betting_it_is_aggression():
    # Heads-up; the flop gives player 0 (big blind, first to act after the flop) a set.
    events = scripted(["9s9h", "AdKc"], "9c5d2s8hJc",
                      [("call", None), ("check", None), ("check", None), ("check", None),
                       ("bet", 2 * BB), ("call", None)])  # fmt: skip
    f = facts(events, ids=(11, 12))
    mine = aggregate([f])[(11, 12)]
    # Flop: checked the set (a spot, no aggression); turn: bet it (a spot, aggression);
    # river: checked after calling... each decision with the set is a spot.
    assert mine.soft_opp >= 2
    assert 1 <= mine.soft_agg < mine.soft_opp
    assert any(e.kind == "soft_play" and e.player == 11 for e in f.evidence)


def test_the_same_hand_always_gives_the_same_facts():
    events = scripted(["AsAh", "7c2d", "KhQh"], "7h7d2s9c3h",
                      [("raise", 3 * BB), ("raise", 10 * BB), ("call", None), ("call", None)])  # fmt: skip
    assert facts(events) == facts(events)


def test_strength_is_known_from_ones_own_cards():
    assert preflop_strength(parse_cards("AsAh")) > 0.8 > preflop_strength(parse_cards("7c2d"))
    assert chance_stronger(parse_cards("AsAh")) == 0.0
    assert chance_stronger(parse_cards("7c2d")) == 1.0
    nuts, air = percentiles([parse_cards("AhKh"), parse_cards("3c4d")],
                            parse_cards("QhJhTh2s"), seed=1)  # fmt: skip
    assert nuts >= STRONG > air


def test_folding_a_strong_hand_to_a_raise_after_the_flop_counts_as_a_surrender():
    # Heads-up: the big blind (0) flops a set of kings, bets, and folds it to the raise.
    events = scripted(["KcKh", "7c2d"], "Ks8d3h4c9s",
                      [("call", None), ("check", None), ("bet", 2 * BB), ("raise", 6 * BB),
                       ("fold", None)])  # fmt: skip
    f = pairs(events, ids=(11, 12))
    assert (f[(11, 12)].give_opp, f[(11, 12)].give_cnt) == (1, 1)
    assert f[(12, 11)].give_opp == 0  # 7-2 facing the bet is no strong hand
    evidence = [e for e in facts(events, ids=(11, 12)).evidence if e.kind == "chip_dumping"]
    assert any("folded KcKh" in e.reason and e.player == 11 for e in evidence)


def test_calling_with_a_strong_hand_is_an_opportunity_without_a_surrender():
    events = scripted(["KcKh", "7c2d"], "Ks8d3h4c9s",
                      [("call", None), ("check", None), ("bet", 2 * BB), ("raise", 6 * BB),
                       ("call", None)])  # fmt: skip
    f = pairs(events, ids=(11, 12))
    assert (f[(11, 12)].give_opp, f[(11, 12)].give_cnt) == (1, 0)


def test_hands_dealt_to_three_or_fewer_count_their_flow_as_short_handed():
    heads_up = pairs(scripted(["AsAh", "7c2d"], "7h7d2s9c3h",
                              [("raise", 100 * BB), ("call", None)]), ids=(11, 12))  # fmt: skip
    for pair in heads_up.values():
        assert pair.short == 1
        assert pair.short_ev_clip == pair.ev_clip and pair.short_ev_clip_sq == pair.ev_clip_sq
    four = pairs(scripted(["AsAh", "7c2d", "8h3s", "9d4c"], "7h7d2s9c3h",
                          [("raise", 100 * BB), ("fold", None), ("fold", None), ("call", None)]),
                 ids=(11, 12, 13, 14))  # fmt: skip
    assert any(p.ev_clip for p in four.values())
    assert all(p.short == 0 and p.short_ev_clip == 0.0 for p in four.values())
