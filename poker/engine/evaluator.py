"""Poker hand evaluation: 5 to 7 cards, Omaha, short deck, and numpy batches.

A hand's *value* is an int where higher is better and equal means a tie. Standard values
are the dense rank of the best five-card hand among its 7,462 classes (1 is 7-5-4-3-2
offsuit, 7,462 a royal flush); :func:`category` names the category of a value. Short-deck
values live on their own scale (:func:`evaluate_short_deck`, :func:`short_deck_category`)
and must not be compared with standard values.

>>> from poker.engine.cards import parse_cards
>>> category(evaluate(parse_cards("AsKsQsJsTs2c3d")))
'straight_flush'
>>> evaluate(parse_cards("AhAd2c3c4d")) > evaluate(parse_cards("KhKdQcJc9d"))
True

How it works: every card has one precomputed integer key packing three additive fields,
so a single sum of table lookups describes a whole hand:

* bits 0-23: the sum of the cards' additive rank keys (see :mod:`poker.engine._tables`),
  the index of the non-flush table.
* bits 24-39: four 4-bit suit counters (``1 << 24 + 4 * suit``). Adding 3 to every
  counter sets bit 3 of a counter exactly when that suit has five or more cards, so one
  addition and one mask detect a flush without a branch per suit.
* bits 40-91: one bit per card, suit-major (``40 + 13 * suit + rank``). The sum has as
  many bits set as there are cards only if no card repeats (a repeat carries), which
  validates the hand almost for free; the 13 bits of the flush suit are the flush's rank
  mask.

The keys live in a dict, so anything that is not a card of the deck (negative, too
large, a low card in short deck) fails the lookup instead of aliasing a real card, as
negative list indices would. Lookup is by equality, so numpy integers work as cards.

Lookups go through Python lists and dicts (numpy scalar indexing is slow); the batch path
uses the same scheme with numpy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from poker.engine._tables import (
    CATEGORIES,
    RANK_KEYS,
    SHORT_DECK,
    SHORT_DECK_CATEGORIES,
    STANDARD,
)
from poker.engine.cards import FULL_DECK
from poker.engine.cards import SHORT_DECK as SHORT_DECK_CARDS

__all__ = [
    "CATEGORIES",
    "HAND_CLASSES",
    "SHORT_DECK_CATEGORIES",
    "SHORT_DECK_HAND_CLASSES",
    "category",
    "evaluate",
    "evaluate7_unchecked",
    "evaluate_batch",
    "evaluate_omaha",
    "evaluate_short_deck",
    "short_deck_category",
]

#: Number of distinct standard five-card hand values (values run 1..HAND_CLASSES).
HAND_CLASSES = len(STANDARD.category_of) - 1
#: Number of distinct short-deck five-card hand values.
SHORT_DECK_HAND_CLASSES = len(SHORT_DECK.category_of) - 1

_RANK_MASK = (1 << 24) - 1
_SUIT_SHIFT = 24
_FLUSH_PROBE = 0x3333 << _SUIT_SHIFT
_FLUSH_FLAGS = 0x8888 << _SUIT_SHIFT
_CARD_SHIFT = 40


def _card_key(card: int) -> int:
    rank, suit = card >> 2, card & 3
    return (
        RANK_KEYS[rank] | (1 << (_SUIT_SHIFT + 4 * suit)) | (1 << (_CARD_SHIFT + 13 * suit + rank))
    )


_KEY = {card: _card_key(card) for card in FULL_DECK}
_SD_KEY = {card: _card_key(card) for card in SHORT_DECK_CARDS}
# The unchecked path indexes a list, a little faster than the dict.
_KEY_LIST = [_card_key(card) for card in FULL_DECK]
_NONFLUSH = STANDARD.nonflush
_NONFLUSH7 = _NONFLUSH[7]
_FLUSH = STANDARD.flush
_STANDARD_TABLES = (_NONFLUSH, _FLUSH)
_SD_TABLES = (SHORT_DECK.nonflush, SHORT_DECK.flush)


def _flush_value(key: int, flush: Sequence[int]) -> int:
    # Only one suit can hold five of at most seven cards, so the highest flag is it.
    suit = (((key + _FLUSH_PROBE) & _FLUSH_FLAGS).bit_length() - _SUIT_SHIFT) // 4 - 1
    return flush[(key >> (_CARD_SHIFT + 13 * suit)) & 0x1FFF]


def _raise_invalid(cards: object, sizes: str, deck: Sequence[int], what: str) -> NoReturn:
    """Explain precisely why ``cards`` is not a valid hand (cold path only)."""
    try:
        items = list(cards)  # type: ignore[call-overload]  # cards may be anything here: the TypeError is the answer
    except TypeError:
        raise ValueError(f"{what} must be a sequence of card ints, got {cards!r}") from None
    allowed = set(deck)
    for card in items:
        if not isinstance(card, int | np.integer) or isinstance(card, bool):
            raise ValueError(f"{what}: {card!r} is not a card int")
        if int(card) not in allowed:
            low = "0..51" if len(deck) == 52 else f"{min(deck)}..{max(deck)} (short deck)"
            raise ValueError(f"{what}: card {int(card)} is outside {low}")
    if len(set(int(c) for c in items)) != len(items):
        dupes = sorted({int(c) for c in items if items.count(c) > 1})
        raise ValueError(f"{what}: duplicate cards {dupes} in {items}")
    raise ValueError(f"{what} must have {sizes} cards, got {len(items)}")


def _evaluate_any(
    cards: Sequence[int],
    key: dict[int, int],
    tables: tuple[tuple[dict[int, int], ...], Sequence[int]],
    deck: Sequence[int],
    what: str,
) -> int:
    """Validated evaluation of 5, 6 or 7 cards with the given card keys and tables."""
    try:
        n = len(cards)
        k = 0
        for card in cards:
            k += key[card]
    except (KeyError, TypeError):
        _raise_invalid(cards, "5, 6 or 7", deck, what)
    if not 5 <= n <= 7 or (k >> _CARD_SHIFT).bit_count() != n:
        _raise_invalid(cards, "5, 6 or 7", deck, what)
    nonflush, flush = tables
    if (k + _FLUSH_PROBE) & _FLUSH_FLAGS:
        return _flush_value(k, flush)
    return nonflush[n][k & _RANK_MASK]


def evaluate(cards: Sequence[int]) -> int:
    """Value of the best five-card high hand within 5, 6 or 7 cards (higher is better).

    Raises ValueError for another number of cards, duplicates or ints outside 0..51.

    >>> from poker.engine.cards import parse_cards
    >>> evaluate(parse_cards("AsKsQsJsTs")) == HAND_CLASSES
    True
    """
    # Seven cards (hold'em showdown, simulations) get an unrolled path; the general one
    # handles 5 and 6 cards and every error.
    try:
        a, b, c, d, e, f, g = cards
    except (ValueError, TypeError):
        return _evaluate_any(cards, _KEY, _STANDARD_TABLES, FULL_DECK, "a hand")
    key = _KEY
    try:
        k = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
    except (KeyError, TypeError):
        _raise_invalid(cards, "5, 6 or 7", FULL_DECK, "a hand")
    if (k >> _CARD_SHIFT).bit_count() != 7:
        _raise_invalid(cards, "5, 6 or 7", FULL_DECK, "a hand")
    if (k + _FLUSH_PROBE) & _FLUSH_FLAGS:
        return _flush_value(k, _FLUSH)
    return _NONFLUSH7[k & _RANK_MASK]


def evaluate7_unchecked(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
    """:func:`evaluate` for exactly seven cards, without any validation.

    For hot loops (equity simulations, the engine at showdown) whose cards come from a
    deck and are known to be distinct ints in 0..51. Anything else gives a meaningless
    result or an exception, never a ValueError.
    """
    key = _KEY_LIST
    k = key[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
    if (k + _FLUSH_PROBE) & _FLUSH_FLAGS:
        return _flush_value(k, _FLUSH)
    return _NONFLUSH7[k & _RANK_MASK]


def category(value: int) -> str:
    """Category name of a standard value, e.g. ``"full_house"`` (see ``CATEGORIES``)."""
    if not 1 <= value <= HAND_CLASSES:
        raise ValueError(f"{value!r} is not a hand value in 1..{HAND_CLASSES}")
    return STANDARD.category_of[value]


def evaluate_omaha(hole: Sequence[int], board: Sequence[int]) -> int:
    """Value of the best Omaha hand: exactly two hole cards plus exactly three board cards.

    ``hole`` has 4 to 6 cards (PLO4/5/6), ``board`` 3 to 5. The value is on the scale of
    :func:`evaluate`. Raises ValueError for wrong counts, duplicates or bad card ints.

    >>> from poker.engine.cards import parse_cards
    >>> category(evaluate_omaha(parse_cards("AsKsQsJs"), parse_cards("2s7h8d")))
    'high_card'
    """
    key = _KEY
    try:
        hole_keys = [key[c] for c in hole]
        board_keys = [key[c] for c in board]
    except (KeyError, TypeError):
        _raise_invalid([*hole, *board], "7 to 11", FULL_DECK, "an Omaha hand")
    nh, nb = len(hole_keys), len(board_keys)
    if not 4 <= nh <= 6:
        raise ValueError(f"Omaha needs 4 to 6 hole cards, got {nh}")
    if not 3 <= nb <= 5:
        raise ValueError(f"Omaha needs 3 to 5 board cards, got {nb}")
    if ((sum(hole_keys) + sum(board_keys)) >> _CARD_SHIFT).bit_count() != nh + nb:
        _raise_invalid([*hole, *board], "7 to 11", FULL_DECK, "an Omaha hand")

    nonflush, flush = _NONFLUSH[5], _FLUSH
    triples = [x + y + z for x, y, z in combinations(board_keys, 3)]
    best = 0
    for x, y in combinations(hole_keys, 2):
        pair = x + y
        for triple in triples:
            k = pair + triple
            if (k + _FLUSH_PROBE) & _FLUSH_FLAGS:
                value = _flush_value(k, flush)
            else:
                value = nonflush[k & _RANK_MASK]
            if value > best:
                best = value
    return best


def evaluate_short_deck(cards: Sequence[int]) -> int:
    """Value of the best five-card short-deck (6+ hold'em) hand within 5, 6 or 7 cards.

    Cards must come from the 36-card deck (sixes to aces, ints 16..51). A flush beats a
    full house; A-6-7-8-9 is the lowest straight and A-2-3-4-5 does not exist. Otherwise
    the standard order holds: straight flush > quads > flush > full house > straight >
    three of a kind > two pair > pair > high card. Three of a kind vs straight stays
    standard (a straight wins), the common online rule and pokerkit's; some live rules
    (Triton) rank trips above a straight, which this does not do. Values are comparable
    only with other short-deck values.

    >>> from poker.engine.cards import parse_cards
    >>> short_deck_category(evaluate_short_deck(parse_cards("Ah6c7d8s9h")))
    'straight'
    """
    return _evaluate_any(cards, _SD_KEY, _SD_TABLES, SHORT_DECK_CARDS, "a short-deck hand")


def short_deck_category(value: int) -> str:
    """Category name of a short-deck value (see ``SHORT_DECK_CATEGORIES``)."""
    if not 1 <= value <= SHORT_DECK_HAND_CLASSES:
        raise ValueError(f"{value!r} is not a short-deck value in 1..{SHORT_DECK_HAND_CLASSES}")
    return SHORT_DECK.category_of[value]


# ---------------------------------------------------------------------------------------
# Batch evaluation with numpy: same idea, split in two gathers because the fields need
# more than 64 bits. ``_NP_KEY`` holds suit counters (bits 0-15) and the rank-key sum
# (bits 16+); ``_NP_BITS`` the card bits (suit-major, bits 0-51). Entries 52..103 are 0:
# take(mode="clip") sends every index above 51 to a zero entry, and a zero key leaves a
# card bit missing, so the popcount check rejects the row.
_NP_KEY = np.zeros(104, dtype=np.int64)
_NP_BITS = np.zeros(104, dtype=np.uint64)
for _card in FULL_DECK:
    _NP_KEY[_card] = (RANK_KEYS[_card >> 2] << 16) | (1 << (4 * (_card & 3)))
    _NP_BITS[_card] = 1 << (13 * (_card & 3) + (_card >> 2))
_NP_FLUSH = np.array(STANDARD.flush, dtype=np.uint16)
# Flush flags (key + 0x3333) & 0x8888, shifted right by 3, to the card-bit offset of the
# flush suit.
_NP_FLUSH_SHIFT = np.zeros(0x1112, dtype=np.uint64)
for _suit in range(4):
    _NP_FLUSH_SHIFT[1 << (4 * _suit)] = 13 * _suit
_np_nonflush: dict[int, npt.NDArray[np.uint16]] = {}
# Rows per step: about 1 MB of temporaries, which stays in the 2 MB per-core L2.
_BATCH_CHUNK = 8192


def _np_nonflush_table(n: int) -> npt.NDArray[np.uint16]:
    """Dense array form of ``nonflush[n]`` (about 15 MB), built on first use."""
    table = _np_nonflush.get(n)
    if table is None:
        sums = np.fromiter(STANDARD.nonflush[n].keys(), dtype=np.int64)
        values = np.fromiter(STANDARD.nonflush[n].values(), dtype=np.uint16)
        table = np.zeros(int(sums.max()) + 1, dtype=np.uint16)
        table[sums] = values
        _np_nonflush[n] = table
    return table


def _raise_first_bad_row(arr: npt.NDArray[np.integer[Any]], start: int) -> NoReturn:
    """Find and explain the first invalid row at or after ``start`` (cold path only)."""
    n = arr.shape[1]
    for row in range(start, len(arr)):
        cards = arr[row].tolist()
        if len(set(cards)) != n or not all(0 <= c <= 51 for c in cards):
            _raise_invalid(cards, str(n), FULL_DECK, f"hand row {row}")
    raise AssertionError("a chunk failed validation but no row is invalid")


def evaluate_batch(hands: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Values of many hands at once: an (N, 5..7) int array of cards -> int32 array (N,).

    Row ``i`` of the result equals ``evaluate(hands[i])``. Raises ValueError if the array
    has the wrong shape or dtype, or if any row has a duplicate or a card outside 0..51
    (the message names the first bad row).

    >>> import numpy as np
    >>> evaluate_batch(np.array([[51, 47, 43, 39, 35, 0, 1]])).tolist() == [HAND_CLASSES]
    True
    """
    arr = np.asarray(hands)
    if arr.ndim != 2 or not 5 <= arr.shape[1] <= 7:
        raise ValueError(f"hands must be an (N, 5..7) array, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"hands must hold integer cards, got dtype {arr.dtype}")
    rows_in, n = arr.shape
    # take(mode="clip") sends anything above 103 to a zero key, caught by the popcount
    # check below; only negatives (clipped to card 0) and uint64 values that wrap
    # negative when cast to intp need their own check.
    signed = arr.dtype.kind == "i"
    wide_unsigned = arr.dtype.kind == "u" and arr.dtype.itemsize == 8

    # Work in chunks whose temporaries stay in cache and are reused: whole-array
    # temporaries are large fresh allocations whose page faults alone cost more than the
    # arithmetic.
    out = np.empty(rows_in, dtype=np.uint16)
    nonflush = _np_nonflush_table(n)
    chunk = max(1, min(rows_in, _BATCH_CHUNK))
    keys = np.empty((chunk, n), dtype=np.int64)
    bits = np.empty((chunk, n), dtype=np.uint64)
    key_buf = np.empty(chunk, dtype=np.int64)
    bits_buf = np.empty(chunk, dtype=np.uint64)
    flag_buf = np.empty(chunk, dtype=np.int64)
    for start in range(0, rows_in, chunk):
        part = arr[start : start + chunk]
        if (signed and part.min() < 0) or (wide_unsigned and part.max() > 51):
            _raise_first_bad_row(arr, start)
        size = len(part)
        _NP_KEY.take(part, out=keys[:size], mode="clip")
        _NP_BITS.take(part, out=bits[:size], mode="clip")
        # einsum sums short rows several times faster than sum(axis=1).
        key = np.einsum("ij->i", keys[:size], out=key_buf[:size])
        card_bits = np.einsum("ij->i", bits[:size], out=bits_buf[:size])
        counts = np.bitwise_count(card_bits)
        if counts.min() != n:
            _raise_first_bad_row(arr, start)
        flags = np.add(key, 0x3333, out=flag_buf[:size])
        np.bitwise_and(flags, 0x8888, out=flags)
        np.right_shift(key, 16, out=key)
        chunk_out = out[start : start + size]
        nonflush.take(key, out=chunk_out, mode="clip")
        rows = np.flatnonzero(flags)
        if rows.size:
            shift = _NP_FLUSH_SHIFT.take(flags[rows] >> 3)
            chunk_out[rows] = _NP_FLUSH.take((card_bits[rows] >> shift) & np.uint64(0x1FFF))
    return out.astype(np.int32)
