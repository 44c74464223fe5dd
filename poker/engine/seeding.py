"""How a hand's deck is recorded in ``HandStarted`` and rebuilt from it.

The shuffle is a pure function of the SECRET server seed (plus client seeds and nonce), so
the events alone rebuild the exact deck of a hand that must continue after a restart.
A :class:`~poker.engine.deck.FixedDeck` (tests, tools) is recorded card by card.

The seed is revealed when the hand ends, so give every hand its own ``FairDeck`` (a fresh
seed); never deal two hands from one seed with different nonces.
"""

from __future__ import annotations

from typing import TypedDict

from poker.engine.deck import DeckSource, FairDeck, shuffle_deck
from poker.engine.events import HandStarted
from poker.engine.variants import Variant, get_variant


def deck_for(event: HandStarted) -> tuple[int, ...]:
    """The shuffled deck a ``HandStarted`` event commits to (empty for explicit dealing)."""
    if event.fixed_deck:
        return event.fixed_deck
    if event.server_seed:
        game_deck = get_variant(event.variant).deck
        seed = bytes.fromhex(event.server_seed)
        return shuffle_deck(seed, game_deck, event.client_seeds, event.nonce)
    return ()


class DeckFields(TypedDict):
    """The ``HandStarted`` fields that describe where the cards come from."""

    deck_commitment: str
    server_seed: str
    client_seeds: tuple[str, ...]
    nonce: int
    fixed_deck: tuple[int, ...]


def source_fields(
    source: DeckSource | None, variant: Variant, nonce: int = 0
) -> tuple[DeckFields, tuple[int, ...]]:
    """How ``source`` is recorded in ``HandStarted``, and the deck order it deals.

    A :class:`FairDeck` is recorded by its commitment and (SECRET) seed, client seeds and
    nonce; any other source (a :class:`FixedDeck`) by its whole order (SECRET too).
    """
    if source is None:
        fields = DeckFields(
            deck_commitment="", server_seed="", client_seeds=(), nonce=0, fixed_deck=()
        )
        return fields, ()
    order = source.deck_order(variant.deck, nonce=nonce)
    if isinstance(source, FairDeck):
        fields = DeckFields(
            deck_commitment=source.commitment,
            server_seed=source.server_seed.hex(),
            client_seeds=source.client_seeds,
            nonce=nonce,
            fixed_deck=(),
        )
    else:
        fields = DeckFields(
            deck_commitment="", server_seed="", client_seeds=(), nonce=nonce, fixed_deck=order
        )
    return fields, order
