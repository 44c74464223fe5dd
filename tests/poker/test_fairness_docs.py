"""docs/provably-fair.md's worked example is what the code computes (the docs cannot drift)."""

from __future__ import annotations

import hashlib
import hmac
import json

from poker.engine.cards import FULL_DECK, SHORT_DECK, format_card
from poker.engine.deck import _message, commitment, shuffle_deck
from poker.fairness import deal_verify
from tests.support.fairness import example


def test_the_worked_example_in_the_docs_is_what_the_code_computes():
    ex = example()
    seed = bytes.fromhex(ex["server_seed"])
    client_seeds = json.loads(ex["client_seeds"])
    nonce = int(ex["nonce"])
    message = _message(client_seeds, nonce)
    key = hmac.digest(seed, message, "sha256")
    assert ex["commitment"] == commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert ex["message"] == message.hex()
    assert ex["key"] == key.hex()
    assert ex["block_0"] == hmac.digest(key, (0).to_bytes(8, "big"), "sha256").hex()
    for name, cards in (("deck NT", FULL_DECK), ("deck NS", SHORT_DECK)):
        deck = shuffle_deck(seed, cards, client_seeds, nonce)
        assert ex[name].split() == [format_card(c) for c in deck], name


def test_the_worked_example_passes_the_public_verifier():
    ex = example()
    deck = ex["deck NT"].split()
    result = deal_verify(
        server_seed=ex["server_seed"], commitment=ex["commitment"],
        client_seeds=json.loads(ex["client_seeds"]), nonce=int(ex["nonce"]), variant="NT",
        dealt=[{"position": k, "card": card} for k, card in enumerate(deck[:9])],
    )  # fmt: skip
    assert result["ok"] and result["deck"] == deck
