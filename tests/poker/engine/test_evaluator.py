"""Hand evaluator tests, checked against a slow, obviously-correct reference classifier."""

from __future__ import annotations

import doctest
import random
from collections import Counter
from functools import cache
from itertools import chain, combinations, combinations_with_replacement
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from poker.engine._tables import RANK_KEYS
from poker.engine.cards import SHORT_DECK, parse_cards
from poker.engine.evaluator import (
    CATEGORIES,
    HAND_CLASSES,
    SHORT_DECK_CATEGORIES,
    SHORT_DECK_HAND_CLASSES,
    category,
    evaluate,
    evaluate7_unchecked,
    evaluate_batch,
    evaluate_omaha,
    evaluate_short_deck,
    short_deck_category,
)

# --- reference -------------------------------------------------------------------------
# Strength of each category in the reference, highest wins. Short deck swaps flush and
# full house; everything else is the standard order.
STANDARD_ORDER = {
    "straight_flush": 8,
    "four_of_a_kind": 7,
    "full_house": 6,
    "flush": 5,
    "straight": 4,
    "three_of_a_kind": 3,
    "two_pair": 2,
    "pair": 1,
    "high_card": 0,
}
SHORT_ORDER = {**STANDARD_ORDER, "full_house": 5, "flush": 6}


def reference_rank5(cards: tuple[int, ...], short: bool = False) -> tuple[int, ...]:
    """Comparable tuple for exactly five cards: (category strength, tie-break ranks...)."""
    ranks = tuple(sorted((c >> 2 for c in cards), reverse=True))
    return reference_rank_of(ranks, len({c & 3 for c in cards}) == 1, short)


@cache  # a hand's rank depends only on its ranks and whether it is suited: memoize
def reference_rank_of(ranks: tuple[int, ...], is_flush: bool, short: bool) -> tuple[int, ...]:
    counts = Counter(ranks)
    distinct = sorted(counts, reverse=True)
    low_straight = [12, 7, 6, 5, 4] if short else [12, 3, 2, 1, 0]
    straight_high = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight_high = distinct[0]
    elif distinct == low_straight:
        straight_high = low_straight[1]
    # Ranks ordered by how many times they appear, then by rank: the kicker order.
    kickers = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    order = SHORT_ORDER if short else STANDARD_ORDER
    if is_flush and straight_high is not None:
        name, tie = "straight_flush", (straight_high,)
    elif shape == [4, 1]:
        name, tie = "four_of_a_kind", kickers
    elif shape == [3, 2]:
        name, tie = "full_house", kickers
    elif is_flush:
        name, tie = "flush", ranks
    elif straight_high is not None:
        name, tie = "straight", (straight_high,)
    elif shape == [3, 1, 1]:
        name, tie = "three_of_a_kind", kickers
    elif shape == [2, 2, 1]:
        name, tie = "two_pair", kickers
    elif shape == [2, 1, 1, 1]:
        name, tie = "pair", kickers
    else:
        name, tie = "high_card", ranks
    return (order[name], *tie)


def reference_best(cards: tuple[int, ...], short: bool = False) -> tuple[int, ...]:
    """Best reference tuple over every five-card subset."""
    return max(reference_rank5(five, short) for five in combinations(cards, 5))


def class_representatives(short: bool) -> list[tuple[int, ...]]:
    """One five-card hand for every rank multiset (unsuited) and every suited rank set."""
    ranks = range(4, 13) if short else range(13)
    hands = []
    for multiset in combinations_with_replacement(ranks, 5):
        if max(Counter(multiset).values()) > 4:
            continue
        seen: Counter[int] = Counter()
        cards = []
        for r in multiset:
            cards.append(r * 4 + seen[r])  # nth copy of a rank gets suit n
            seen[r] += 1
        if len({c & 3 for c in cards}) == 1:
            cards[-1] += 1  # five distinct ranks, all clubs so far: break the flush
        hands.append(tuple(cards))
    hands.extend(tuple(r * 4 for r in rs) for rs in combinations(ranks, 5))
    return hands


@cache
def reference_value_table(short: bool) -> dict[tuple[int, ...], int]:
    """Reference tuple -> dense rank 1..K, i.e. the value the evaluator must return."""
    keys = sorted({reference_rank5(h, short) for h in class_representatives(short)})
    return {key: i for i, key in enumerate(keys, start=1)}


def random_hands(count: int, size: int, seed: int, deck: tuple[int, ...] = tuple(range(52))):
    rng = random.Random(seed)
    return [tuple(rng.sample(deck, size)) for _ in range(count)]


# --- tables ----------------------------------------------------------------------------


def test_rank_keys_give_a_unique_sum_for_every_rank_multiset_of_each_size() -> None:
    for size in (5, 6, 7):
        sums = [
            sum(RANK_KEYS[r] for r in m)
            for m in combinations_with_replacement(range(13), size)
            if max(Counter(m).values()) <= 4
        ]
        assert len(set(sums)) == len(sums)
        assert max(sums) < 2**23


# --- standard five-card ranking ------------------------------------------------------


def test_there_are_exactly_7462_classes_ordered_like_the_reference() -> None:
    reps = class_representatives(short=False)
    assert len(reps) == 7462 == HAND_CLASSES
    table = reference_value_table(short=False)
    assert len(table) == 7462
    values = [evaluate(h) for h in reps]
    assert sorted(values) == list(range(1, 7463))
    assert values == [table[reference_rank5(h)] for h in reps]


def test_all_2598960_five_card_hands_have_the_known_category_counts() -> None:
    hands = np.fromiter(
        chain.from_iterable(combinations(range(52), 5)), dtype=np.int8, count=2598960 * 5
    ).reshape(-1, 5)
    values = evaluate_batch(hands)
    names = np.array(["", *(category(v) for v in range(1, HAND_CLASSES + 1))])
    counts = Counter(names[values].tolist())
    assert counts == {
        "high_card": 1302540,
        "pair": 1098240,
        "two_pair": 123552,
        "three_of_a_kind": 54912,
        "straight": 10200,
        "flush": 5108,
        "full_house": 3744,
        "four_of_a_kind": 624,
        "straight_flush": 40,
    }
    sample = np.random.default_rng(5).choice(len(hands), 3000, replace=False)
    assert [evaluate(hands[i].tolist()) for i in sample] == values[sample].tolist()


def test_category_names_each_value_range_in_order() -> None:
    names = [category(v) for v in range(1, HAND_CLASSES + 1)]
    # Each category is one contiguous run, in the documented order.
    runs = [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]
    assert runs == list(CATEGORIES)
    assert Counter(names) == {
        "high_card": 1277,
        "pair": 2860,
        "two_pair": 858,
        "three_of_a_kind": 858,
        "straight": 10,
        "flush": 1277,
        "full_house": 156,
        "four_of_a_kind": 156,
        "straight_flush": 10,
    }


@pytest.mark.parametrize("value", [0, -1, HAND_CLASSES + 1])
def test_category_rejects_values_outside_the_scale(value: int) -> None:
    with pytest.raises(ValueError, match="not a hand value"):
        category(value)


def test_wheel_is_the_lowest_straight_and_six_high_beats_it() -> None:
    wheel = evaluate(parse_cards("Ah2d3c4s5h"))
    six_high = evaluate(parse_cards("2d3c4s5h6h"))
    assert category(wheel) == "straight"
    assert wheel < six_high
    assert wheel == min(v for v in range(1, HAND_CLASSES + 1) if category(v) == "straight")
    steel = evaluate(parse_cards("Ah2h3h4h5h"))
    assert category(steel) == "straight_flush"
    assert steel == min(v for v in range(1, HAND_CLASSES + 1) if category(v) == "straight_flush")


def test_ace_does_not_wrap_around_in_a_straight() -> None:
    assert category(evaluate(parse_cards("QhKdAc2s3h"))) == "high_card"


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("AsAhKdKc2s", "AsAhQdQcKs"),  # two pair: second pair decides
        ("7s7h7d2c2s", "6s6h6dAcAs"),  # full house: trips decide
        ("AhKhQh9h8h", "AhKhQh9h7h"),  # flush: fifth card decides
        ("2c2d2h2s4c", "2c2d2h2s3c"),  # quads: kicker decides
        ("Th9h8h7h6h", "AsAdAhAcKs"),  # straight flush beats quads
        ("AsKdQhJcTs", "5c5d5h2s3s"),  # straight beats trips
        ("2h3h5h7h9h", "AsKdQhJcTs"),  # flush beats straight
    ],
)
def test_hand_picked_comparisons(better: str, worse: str) -> None:
    assert evaluate(parse_cards(better)) > evaluate(parse_cards(worse))


def test_identical_ranks_in_other_suits_tie() -> None:
    assert evaluate(parse_cards("AsKd9h7c2s")) == evaluate(parse_cards("AhKc9s7d2d"))


# --- 5, 6 and 7 cards against the reference ---------------------------------------


def test_per_call_seven_card_values_match_the_best_of_21_subsets_reference() -> None:
    table = reference_value_table(short=False)
    for hand in random_hands(20000, 7, seed=7):
        assert evaluate(hand) == table[reference_best(hand)], hand


@given(
    cards=st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True),
    suits=st.permutations(range(4)),
    data=st.randoms(use_true_random=False),
)
def test_value_ignores_card_order_and_suit_renaming(
    cards: list[int], suits: list[int], data: random.Random
) -> None:
    shuffled = cards.copy()
    data.shuffle(shuffled)
    renamed = [(c & ~3) | suits[c & 3] for c in cards]
    assert evaluate(cards) == evaluate(shuffled) == evaluate(renamed)
    assert evaluate_batch(np.array([cards, shuffled, renamed])).tolist() == [evaluate(cards)] * 3


def test_unchecked_seven_card_path_agrees_with_evaluate() -> None:
    for hand in random_hands(5000, 7, seed=11):
        assert evaluate7_unchecked(*hand) == evaluate(hand)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_batch_matches_the_reference_for_5_6_and_7_columns(size: int) -> None:
    table = reference_value_table(short=False)
    hands = random_hands(20000, size, seed=size)
    expected = [table[reference_best(h)] for h in hands]
    for dtype in (np.int64, np.uint8, np.int16):
        assert evaluate_batch(np.array(hands, dtype=dtype)).tolist() == expected
    wide = np.array(hands, dtype=np.int64)
    assert evaluate_batch(np.asfortranarray(wide)).tolist() == expected
    assert evaluate_batch(wide[::2]).tolist() == expected[::2]
    assert [evaluate(h) for h in hands] == expected


def test_numpy_integers_are_accepted_as_cards() -> None:
    hand = parse_cards("AsKsQsJsTs2c3d")
    assert evaluate(tuple(np.array(hand))) == evaluate(hand) == HAND_CLASSES
    assert evaluate(np.array(hand[:5], dtype=np.int8)) == HAND_CLASSES


def test_batch_of_zero_rows_is_empty() -> None:
    assert evaluate_batch(np.zeros((0, 7), dtype=np.int64)).shape == (0,)


def test_flush_with_six_or_seven_suited_cards_uses_the_best_five() -> None:
    assert evaluate(parse_cards("AhKh9h7h5h3h2h")) == evaluate(parse_cards("AhKh9h7h5h"))
    hidden_straight_flush = parse_cards("9h8h7h6h5hAhKs")
    assert category(evaluate(hidden_straight_flush)) == "straight_flush"


# --- invalid input --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ((0, 1, 2, 3), "must have 5, 6 or 7 cards, got 4"),
        ((0, 1, 2, 3, 4, 5, 6, 7), "must have 5, 6 or 7 cards, got 8"),
        ((0, 1, 2, 3, 3), r"duplicate cards \[3\]"),
        ((0, 1, 2, 3, 52), "card 52 is outside 0..51"),
        ((0, 1, 2, 3, -1), "card -1 is outside 0..51"),
        ((0, 1, 2, 3, 500), "card 500 is outside 0..51"),
        ((0, 1, 2, 3, -200), "card -200 is outside 0..51"),
        # Negative ints that a list index would wrap onto real cards.
        ((0, 1, 2, 3, -60), "card -60 is outside 0..51"),
        ((0, 1, 2, 3, 4, 5, -60), "card -60 is outside 0..51"),
        ((0, 1, 2, 3, "As"), "'As' is not a card int"),
        ((0, 1, 2, 3, 4, 5, None), "None is not a card int"),
        (5, "must be a sequence of card ints"),
    ],
)
def test_evaluate_rejects_invalid_hands_with_a_clear_message(
    cards: tuple[object, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(cards)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (np.zeros((3, 4), dtype=np.int64), "shape"),
        (np.zeros(7, dtype=np.int64), "shape"),
        (np.zeros((2, 7), dtype=np.float64), "dtype"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]), r"row 1: duplicate cards \[3\]"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 52]]), "row 1: card 52 is outside"),
        (np.array([[0, 1, 2, 3, -1], [0, 1, 2, 3, 4]]), "row 0: card -1 is outside"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 999]]), "row 1: card 999 is outside"),
        (np.array([[0, 1, 2, 3, 3], [0, 1, 2, 3, -1]]), "row 0: duplicate"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, -7]], dtype=np.int8), "row 1: card -7"),
        (np.array([[0, 1, 2, 3, 2**63 + 5]], dtype=np.uint64), "row 0: card 9223372036854775813"),
    ],
)
def test_batch_rejects_invalid_input_naming_the_row(hands: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_batch(hands)


# --- Omaha -----------------------------------------------------------------------------


def reference_omaha(hole: tuple[int, ...], board: tuple[int, ...]) -> tuple[int, ...]:
    return max(
        reference_rank5(two + three)
        for two in combinations(hole, 2)
        for three in combinations(board, 3)
    )


@pytest.mark.parametrize(
    ("hole", "board", "expected"),
    [
        ("AsKsQsJs", "2s7h8d", "high_card"),  # four spades in hand + one on board
        ("AsKsQsJs", "2s7s8dTs3c", "flush"),  # two from hand, three spades on board
        ("Ah2c3d4s", "KhQhJhTh9c", "high_card"),  # four hearts on board, one in hand
        ("AhKc3d4s", "KhQhJhTh9c", "straight"),  # AhKc + QJT, never a royal
        ("AhAcAdKs", "2c7d9h", "pair"),  # three aces in hand still only a pair
        ("AhAcKdKs", "AsKh2c", "three_of_a_kind"),  # a full house needs 3 hole cards
        ("2c3d8h9s", "AcAdAhAs5c", "three_of_a_kind"),  # quads on board play as trips
        ("5c6d8h9s", "7cTdJh", "straight"),  # 89 + 7TJ
    ],
)
def test_omaha_uses_exactly_two_hole_cards_and_three_board_cards(
    hole: str, board: str, expected: str
) -> None:
    h, b = parse_cards(hole), parse_cards(board)
    value = evaluate_omaha(h, b)
    assert category(value) == expected
    assert value == reference_value_table(short=False)[reference_omaha(h, b)]


def test_omaha_matches_the_reference_for_four_five_and_six_hole_cards() -> None:
    table = reference_value_table(short=False)
    rng = random.Random(3)
    for i in range(600):
        cards = rng.sample(range(52), 4 + i % 3 + 3 + i % 3)
        hole, board = tuple(cards[: 4 + i % 3]), tuple(cards[4 + i % 3 :])
        assert evaluate_omaha(hole, board) == table[reference_omaha(hole, board)]


@pytest.mark.parametrize(
    ("hole", "board", "message"),
    [
        ((0, 1, 2), (3, 4, 5), "4 to 6 hole cards, got 3"),
        ((0, 1, 2, 3, 4, 5, 6), (8, 9, 10), "4 to 6 hole cards, got 7"),
        ((0, 1, 2, 3), (8, 9), "3 to 5 board cards, got 2"),
        ((0, 1, 2, 3), (8, 9, 10, 11, 12, 13), "3 to 5 board cards, got 6"),
        ((0, 1, 2, 3), (3, 9, 10), r"duplicate cards \[3\]"),
        ((0, 1, 2, 52), (8, 9, 10), "card 52 is outside"),
        ((0, 1, 2, 3), (8, 9, -50), "card -50 is outside"),
    ],
)
def test_omaha_rejects_invalid_input(
    hole: tuple[int, ...], board: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_omaha(hole, board)


# --- short deck ------------------------------------------------------------------------


def sd(text: str) -> int:
    return evaluate_short_deck(parse_cards(text))


def test_short_deck_classes_are_ordered_like_the_reference() -> None:
    reps = class_representatives(short=True)
    table = reference_value_table(short=True)
    assert len(table) == len(reps) == SHORT_DECK_HAND_CLASSES
    assert [evaluate_short_deck(h) for h in reps] == [
        table[reference_rank5(h, short=True)] for h in reps
    ]


def test_short_deck_category_counts_over_all_376992_hands_match_brute_force() -> None:
    expected: Counter[str] = Counter()
    names = {v: k for k, v in SHORT_ORDER.items()}
    actual: Counter[str] = Counter()
    for hand in combinations(SHORT_DECK, 5):
        expected[names[reference_rank5(hand, short=True)[0]]] += 1
        actual[short_deck_category(evaluate_short_deck(hand))] += 1
    assert sum(expected.values()) == comb(36, 5) == 376992
    assert actual == expected
    assert expected["flush"] < expected["full_house"]  # why the flush ranks higher


def test_short_deck_flush_beats_full_house() -> None:
    flush, full_house = sd("6h8hTh7hQh"), sd("AsAhAdKcKs")
    assert short_deck_category(flush) == "flush"
    assert short_deck_category(full_house) == "full_house"
    assert flush > full_house


def test_short_deck_keeps_straight_above_three_of_a_kind() -> None:
    assert sd("Ah6c7d8s9h") > sd("AcAdAh7sKs")


def test_short_deck_a6789_is_the_lowest_straight() -> None:
    low = sd("Ah6c7d8s9h")
    assert short_deck_category(low) == "straight"
    assert low < sd("6c7d8s9hTh")
    assert low == min(
        v for v in range(1, SHORT_DECK_HAND_CLASSES + 1) if short_deck_category(v) == "straight"
    )
    assert short_deck_category(sd("Ah6h7h8h9h")) == "straight_flush"


def test_short_deck_has_no_wheel() -> None:
    with pytest.raises(ValueError, match=r"outside 16\.\.51"):
        evaluate_short_deck(parse_cards("Ah2c3d4s5h"))
    # A-K-Q with 6-7 is just ace high.
    assert short_deck_category(sd("AhKc6d7s9h")) == "high_card"


def test_short_deck_seven_cards_match_the_reference() -> None:
    table = reference_value_table(short=True)
    for size in (6, 7):
        for hand in random_hands(2000, size, seed=size, deck=SHORT_DECK):
            assert evaluate_short_deck(hand) == table[reference_best(hand, short=True)]


@pytest.mark.parametrize(
    "cards",
    [
        (16, 17, 18, 19),
        (16, 17, 18, 19, 19),
        (16, 17, 18, 19, 15),
        (16, 17, 18, 19, 52),
        (16, 17, 18, 19, -30),
    ],
)
def test_short_deck_rejects_invalid_hands(cards: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        evaluate_short_deck(cards)


def test_short_deck_category_rejects_values_outside_its_scale() -> None:
    with pytest.raises(ValueError):
        short_deck_category(SHORT_DECK_HAND_CLASSES + 1)
    assert [short_deck_category(1), short_deck_category(SHORT_DECK_HAND_CLASSES)] == [
        SHORT_DECK_CATEGORIES[0],
        SHORT_DECK_CATEGORIES[-1],
    ]


def test_docstring_examples_run() -> None:
    from poker.engine import evaluator

    assert doctest.testmod(evaluator).failed == 0
