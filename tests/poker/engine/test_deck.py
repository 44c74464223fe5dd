"""Provably fair dealing: determinism, verification, a pinned vector and uniformity."""

from __future__ import annotations

import doctest
import hashlib
import hmac
from math import sqrt
from statistics import NormalDist

import numpy as np
import pytest

from poker.engine import deck as deck_module
from poker.engine.cards import FULL_DECK, SHORT_DECK
from poker.engine.deck import (
    DeckSource,
    FairDeck,
    FixedDeck,
    commitment,
    new_server_seed,
    shuffle_deck,
    verify_deal,
)

SEED = bytes(range(32))


def reference_shuffle(
    server_seed: bytes, cards: list[int], client_seeds: list[str], nonce: int
) -> list[int]:
    """The module docstring's algorithm written out independently and eagerly."""
    message = bytearray(b"poker-deck-v1")
    message += len(client_seeds).to_bytes(4, "big")
    for seed in client_seeds:
        encoded = seed.encode("utf-8")
        message += len(encoded).to_bytes(4, "big") + encoded
    message += nonce.to_bytes(8, "big")
    key = hmac.new(server_seed, bytes(message), hashlib.sha256).digest()
    stream = b"".join(
        hmac.new(key, i.to_bytes(8, "big"), hashlib.sha256).digest() for i in range(64)
    )
    values = [int.from_bytes(stream[k : k + 4], "big") for k in range(0, len(stream), 4)]
    deck = list(cards)
    position = 0
    for i in reversed(range(1, len(deck))):
        n = i + 1
        limit = (2**32 // n) * n
        while values[position] >= limit:
            position += 1
        j = values[position] % n
        position += 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_pinned_vector_for_the_all_zero_seed() -> None:
    # Computed with reference_shuffle above, which shares no code with the module.
    expected = [46, 35, 14, 28, 42, 7, 3, 2, 1, 6]
    assert reference_shuffle(bytes(32), list(range(52)), [], 0)[:10] == expected
    assert list(shuffle_deck(bytes(32), FULL_DECK)[:10]) == expected
    with_clients = [4, 46, 36, 18, 32, 0, 51, 30, 5, 48]
    assert reference_shuffle(bytes(32), list(range(52)), ["alice", "bob"], 42)[:10] == (
        with_clients
    )
    assert list(shuffle_deck(bytes(32), FULL_DECK, ["alice", "bob"], 42)[:10]) == with_clients


def test_shuffle_matches_the_reference_for_many_inputs() -> None:
    for nonce in range(50):
        clients = [f"player{i}" for i in range(nonce % 4)]
        cards = list(SHORT_DECK if nonce % 2 else FULL_DECK)
        assert list(shuffle_deck(SEED, cards, clients, nonce)) == reference_shuffle(
            SEED, cards, clients, nonce
        )


def test_same_inputs_give_the_same_order() -> None:
    assert shuffle_deck(SEED, FULL_DECK, ["a"], 3) == shuffle_deck(SEED, FULL_DECK, ["a"], 3)


def test_output_is_a_permutation_of_the_cards() -> None:
    for nonce in range(20):
        assert sorted(shuffle_deck(SEED, FULL_DECK, nonce=nonce)) == list(FULL_DECK)
    assert shuffle_deck(SEED, []) == ()
    assert shuffle_deck(SEED, [7]) == (7,)


@pytest.mark.parametrize(
    "change",
    [
        {"server_seed": bytes(range(1, 33))},
        {"client_seeds": ["a", "b"]},
        {"client_seeds": []},
        {"client_seeds": ["ab", "c"]},
        {"client_seeds": ["a", "bc"]},
        {"client_seeds": ["a", "b", ""]},
        {"nonce": 1},
        {"nonce": 2**64 - 1},
    ],
)
def test_different_seeds_client_seeds_or_nonces_give_different_orders(change: dict) -> None:
    base = {"server_seed": SEED, "cards": FULL_DECK, "client_seeds": ["a", "b", "c"], "nonce": 0}
    assert shuffle_deck(**{**base, **change}) != shuffle_deck(**base)


def test_client_seed_encoding_is_unambiguous() -> None:
    assert shuffle_deck(SEED, FULL_DECK, ["ab", "c"]) != shuffle_deck(SEED, FULL_DECK, ["a", "bc"])
    assert shuffle_deck(SEED, FULL_DECK, [""]) != shuffle_deck(SEED, FULL_DECK, [])


def test_values_at_or_above_the_largest_multiple_are_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # For 3 cards the first bound is 3 and 2**32 % 3 == 1, so 2**32 - 1 must be skipped;
    # taking it modulo 3 would swap positions 2 and 0.
    monkeypatch.setattr(deck_module, "_uint32_stream", lambda key: iter([2**32 - 1, 5, 7]))
    assert shuffle_deck(SEED, [0, 1, 2]) == (0, 1, 2)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"server_seed": b"short"}, ValueError),
        ({"server_seed": "not bytes" * 4}, TypeError),
        ({"nonce": -1}, ValueError),
        ({"nonce": 2**64}, ValueError),
        ({"client_seeds": "alice"}, TypeError),
        ({"client_seeds": [1]}, TypeError),
    ],
)
def test_shuffle_rejects_bad_arguments(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        shuffle_deck(**{"server_seed": SEED, "cards": FULL_DECK, **kwargs})


def test_new_server_seed_is_32_random_bytes_and_commitment_is_its_sha256() -> None:
    seed = new_server_seed()
    assert isinstance(seed, bytes) and len(seed) == 32
    assert new_server_seed() != seed
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert commitment(bytes(32)) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


# --- verification ---------------------------------------------------------------------


def deal_kwargs(**change: object) -> dict:
    clients = ["alice", "bob"]
    dealt = shuffle_deck(SEED, FULL_DECK, clients, 9)[:9]
    base = {
        "server_seed": SEED,
        "commitment": commitment(SEED),
        "cards": FULL_DECK,
        "client_seeds": clients,
        "nonce": 9,
        "dealt": dealt,
    }
    return {**base, **change}


def test_verify_deal_accepts_the_real_deal() -> None:
    assert verify_deal(**deal_kwargs())
    assert verify_deal(**deal_kwargs(dealt=()))
    assert verify_deal(**deal_kwargs(commitment=commitment(SEED).upper()))


def test_verify_deal_rejects_an_altered_card() -> None:
    real = deal_kwargs()["dealt"]
    other = next(c for c in FULL_DECK if c not in real)
    assert not verify_deal(**deal_kwargs(dealt=(*real[:4], other, *real[5:])))
    assert not verify_deal(**deal_kwargs(dealt=(real[1], real[0], *real[2:])))


def test_verify_deal_rejects_an_altered_seed_commitment_or_context() -> None:
    other = bytes(range(1, 33))
    assert not verify_deal(**deal_kwargs(server_seed=other))
    assert not verify_deal(**deal_kwargs(server_seed=other, commitment=commitment(other)))
    assert not verify_deal(**deal_kwargs(commitment=commitment(other)))
    assert not verify_deal(**deal_kwargs(commitment="not hex"))
    assert not verify_deal(**deal_kwargs(nonce=10))
    assert not verify_deal(**deal_kwargs(client_seeds=["alice"]))


def test_verify_deal_returns_false_instead_of_raising_on_malformed_input() -> None:
    assert not verify_deal(**deal_kwargs(server_seed=b"short"))
    assert not verify_deal(**deal_kwargs(server_seed="text"))
    assert not verify_deal(**deal_kwargs(commitment=None))
    assert not verify_deal(**deal_kwargs(nonce=-5))
    assert not verify_deal(
        **deal_kwargs(dealt=(*shuffle_deck(SEED, FULL_DECK, ["alice", "bob"], 9), 0))
    )


# --- sources --------------------------------------------------------------------------


def test_fair_deck_commits_to_its_seed_and_deals_by_nonce() -> None:
    source: DeckSource = FairDeck(SEED, ["alice"])
    assert isinstance(source, FairDeck)
    assert source.commitment == commitment(SEED)
    assert source.deck_order(FULL_DECK, nonce=4) == shuffle_deck(SEED, FULL_DECK, ["alice"], 4)
    assert SEED.hex() not in repr(source)


def test_fair_deck_draws_a_fresh_seed_when_none_is_given() -> None:
    a, b = FairDeck(), FairDeck()
    assert len(a.server_seed) == 32 and a.server_seed != b.server_seed
    assert a.commitment == commitment(a.server_seed)


def test_fair_deck_rejects_bad_client_seeds_up_front() -> None:
    with pytest.raises(TypeError):
        FairDeck(SEED, "alice")


def test_fixed_deck_deals_its_cards_first_then_the_rest_in_order() -> None:
    source: DeckSource = FixedDeck([51, 0, 7])
    order = source.deck_order(FULL_DECK, nonce=99)
    assert order[:3] == (51, 0, 7)
    assert order[3:] == tuple(c for c in FULL_DECK if c not in (51, 0, 7))


def test_fixed_deck_rejects_duplicates_and_cards_outside_the_deck() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        FixedDeck([1, 1])
    with pytest.raises(ValueError, match=r"\[0\] are not in the deck"):
        FixedDeck([0, 51]).deck_order(SHORT_DECK)


# --- uniformity -----------------------------------------------------------------------


def chi2_quantile(p: float, df: int) -> float:
    """Wilson-Hilferty approximation of a chi-square quantile (scipy is not a dependency).

    Checked against an exact incomplete-gamma inversion: 103.82 vs 103.57 for the
    worst-position bound (df 51) and within 0.001% for df 2601; these errors are tiny next
    to the distance between a fair and a biased shuffle's statistics.
    """
    z = NormalDist().inv_cdf(p)
    return df * (1 - 2 / (9 * df) + z * sqrt(2 / (9 * df))) ** 3


def test_every_position_is_uniform_over_20000_shuffles() -> None:
    shuffles, n = 20000, 52
    server_seed = hashlib.sha256(b"chi-square test").digest()
    decks = np.array([shuffle_deck(server_seed, FULL_DECK, ["x"], i) for i in range(shuffles)])
    counts = np.zeros((n, n), dtype=np.int64)  # counts[position, card]
    np.add.at(counts, (np.tile(np.arange(n), shuffles), decks.ravel()), 1)
    assert (counts.sum(axis=1) == shuffles).all()
    expected = shuffles / n
    per_position = ((counts - expected) ** 2 / expected).sum(axis=1)

    # Each position's counts are multinomial(20000, 1/52 each): chi-square, 51 degrees of
    # freedom. 52 positions tested at once: Bonferroni keeps the family-wise false alarm
    # rate at 0.1%.
    alpha = 0.001
    assert per_position.max() < chi2_quantile(1 - alpha / n, n - 1)

    # Aggregate: the table's rows and columns both sum to 20000, which leaves 51 * 51
    # free cells; the covariance of a random permutation matrix in that space is 52/51
    # times the multinomial one, so total * 51 / 52 is chi-square with 2601 df. Both
    # tails are tested: too even a spread would be as suspicious as too uneven a one.
    scaled = per_position.sum() * (n - 1) / n
    df = (n - 1) ** 2
    assert chi2_quantile(alpha / 2, df) < scaled < chi2_quantile(1 - alpha / 2, df)


def test_module_docstring_examples_run() -> None:
    assert doctest.testmod(deck_module).failed == 0
