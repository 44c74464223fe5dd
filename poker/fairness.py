"""Provably fair deals, as players check them: client seeds, per-hand proofs, verification.

The shuffle itself is ``poker.engine.deck`` (algorithm ``poker-deck-v1``); the timeline is:
a table holds the SECRET server seed of its next hand and publishes only its commitment
(``next_deck_commitment`` in the table view). When the hand starts, its deck is
``FairDeck(server_seed=<that seed>, client_seeds=<each dealt-in player's client seed, in
the engine's player order>)`` and the table draws the following seed in the same
transaction, so the server was bound to its seed before it read the client seeds.
docs/provably-fair.md is the reference for re-implementers.

What a viewer learns here follows ``poker.engine.privacy`` through ``HandRecord.seen_by``: the seed
only once every dealt-in player showed (or for staff), and only the cards they may see.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from core.errors import Conflict, InvalidRequest, NotFound
from handhistory.exports.records import STAFF, Viewer, hand_records
from handhistory.models import Hand
from poker.engine.cards import CardParseError, format_card, parse_card
from poker.engine.deck import DOMAIN, MIN_SEED_BYTES, shuffle_deck
from poker.engine.events import (
    UNKNOWN_CARD,
    BoardDealt,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
)
from poker.engine.privacy import may_read_hand
from poker.engine.variants import VARIANTS, get_variant
from poker.models import ClientSeed

ALGORITHM = DOMAIN.decode()
#: Longest client seed; they travel in every HandStarted of the player's hands.
CLIENT_SEED_MAX = 64
#: Why a viewer gets no seed (the plain words are in fairness.js and the docs).
WITHHELD_NOT_ALL_SHOWN = "not_every_player_showed"


# --- client seeds -------------------------------------------------------------------------


def _check_client_seed(seed: str) -> None:
    # Printable ASCII only: a seed is hashed as UTF-8, and with non-ASCII text two seeds
    # that look the same (composed and decomposed accents) would hash differently.
    if len(seed) > CLIENT_SEED_MAX:
        raise InvalidRequest(
            f"A client seed has at most {CLIENT_SEED_MAX} characters, got {len(seed)}.",
            code="invalid_client_seed",
            max_length=CLIENT_SEED_MAX,
            length=len(seed),
        )
    bad = next((c for c in seed if not " " <= c <= "~"), None)
    if bad is not None:
        raise InvalidRequest(
            f"A client seed is printable ASCII (space to ~); {bad!r} is not.",
            code="invalid_client_seed",
            character=f"U+{ord(bad):04X}",
        )


def client_seed_get(*, player_id: int) -> str:
    """The player's client seed ("" when they never set one)."""
    seed = ClientSeed.objects.filter(player_id=player_id).values_list("seed", flat=True).first()
    return seed or ""


def client_seed_set(*, player_id: int, seed: str) -> str:
    """Sets the player's client seed, mixed into every deck they are dealt into from the
    next hand on ("" clears it); a seed that is too long or not printable ASCII is refused
    with ``invalid_client_seed`` and nothing is written."""
    _check_client_seed(seed)
    ClientSeed.objects.update_or_create(player_id=player_id, defaults={"seed": seed})
    return seed


def client_seeds_for(player_ids: Sequence[int]) -> tuple[str, ...]:
    """The client seeds of ``player_ids`` in that order ("" for a player without one): one
    entry per player, so a proof shows whose seed is whose."""
    seeds = dict(
        ClientSeed.objects.filter(player_id__in=list(player_ids)).values_list("player_id", "seed")
    )
    return tuple(seeds.get(pid, "") for pid in player_ids)


def next_deck_commitment(next_server_seed: str) -> str:
    """The public commitment to a table's next seed (hex SHA-256 of its bytes)."""
    return hashlib.sha256(bytes.fromhex(next_server_seed)).hexdigest()


# --- the proof of one hand ----------------------------------------------------------------


def deal_proof(events: Sequence[Event], seats: Sequence[int]) -> dict[str, Any]:
    """What ``events`` (a hand as one viewer may see it: ``HandRecord.seen_by``) prove about
    its deal: the commitment, client seeds and nonce, the seed when it is revealed, the
    variant's deck in its initial order, and each card the viewer knows at its position in
    the shuffled deck (``to``: the seat it went to, or ``"board"``).

    Positions follow the engine's dealing order: hole cards player by player from the left
    of the button (each player's cards together), then the board street by street, no burns.
    """
    started = events[0]
    if not isinstance(started, HandStarted):
        raise ValueError("a hand's events start with HandStarted")
    variant = get_variant(started.variant)
    seed = started.server_seed or next(
        (e.server_seed for e in events if isinstance(e, HandEnded)), ""
    )
    dealt: list[dict[str, Any]] = []
    position = 0
    for event in events:
        if isinstance(event, HoleCardsDealt | BoardDealt):
            to: int | str = seats[event.player] if isinstance(event, HoleCardsDealt) else "board"
            for card in event.cards:
                if card != UNKNOWN_CARD:
                    dealt.append({"position": position, "card": format_card(card), "to": to})
                position += 1
    ended = any(isinstance(e, HandEnded) for e in events)
    dealt_players = {e.player for e in events if isinstance(e, HoleCardsDealt)}
    showed = {e.player for e in events if isinstance(e, CardsShown)}
    return {
        "algorithm": ALGORITHM if started.deck_commitment else None,
        "commitment": started.deck_commitment,
        "server_seed": seed or None,
        "withheld_reason": (
            None if seed or not ended or dealt_players <= showed else WITHHELD_NOT_ALL_SHOWN
        ),
        "client_seeds": list(started.client_seeds),
        "client_seed_seats": list(seats) if started.client_seeds else [],
        "nonce": started.nonce,
        "variant": started.variant,
        "deck": list(variant.deck),
        "deck_text": [format_card(c) for c in variant.deck],
        "dealt": dealt,
    }


def hand_fairness(*, hand_id: int, viewer_id: int | None, full: bool = False) -> dict[str, Any]:
    """The deal proof of hand ``hand_id`` as ``viewer_id`` may see it (``full``: staff, any
    hand, with the seed). The hand view's refusals: someone else's hand is unknown, and a
    hand still being played has no proof yet."""
    hand = Hand.objects.filter(pk=hand_id).values("player_ids", "ended_at").first()
    if hand is None or not may_read_hand(viewer_id, hand["player_ids"], staff=full):
        raise NotFound(f"No hand {hand_id} in your history.", code="hand_not_found", hand=hand_id)
    if hand["ended_at"] is None:
        raise Conflict(
            f"Hand {hand_id} is still being played; its deal can be checked once it ends.",
            code="hand_in_progress",
            hand=hand_id,
        )
    (record,) = hand_records([hand_id])
    events = record.seen_by(STAFF if full else Viewer(user_id=viewer_id))
    return {"hand": hand_id, **deal_proof(events, record.seats)}


# --- verification -------------------------------------------------------------------------


def _seed_bytes(server_seed: str) -> bytes:
    try:
        raw = bytes.fromhex(server_seed)
    except ValueError:
        raw = b""
    if len(raw) < MIN_SEED_BYTES:
        raise InvalidRequest(
            f"The server seed is hex of at least {MIN_SEED_BYTES} bytes.",
            code="invalid_server_seed",
        )
    return raw


def deal_verify(
    *,
    server_seed: str,
    commitment: str,
    client_seeds: Sequence[str],
    nonce: int,
    variant: str,
    dealt: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Recomputes a deck under ``poker-deck-v1`` and checks it against a commitment and the
    cards said to be dealt (``{"position": k, "card": "Ah"}``, the proof's ``dealt``).

    ``ok`` only when the seed hashes to the commitment and every card is at its position;
    ``mismatches`` lists the cards that are not (with the card the deck has there).
    Malformed input (a seed that is not hex, an unknown variant, a position beyond the deck,
    a card that is not one) is a typed 400, never a False.
    """
    seed = _seed_bytes(server_seed)
    if variant not in VARIANTS:
        raise InvalidRequest(
            f"Unknown variant {variant!r} (known: {', '.join(VARIANTS)}).",
            code="unknown_variant",
            variant=variant,
        )
    deck = shuffle_deck(seed, get_variant(variant).deck, tuple(client_seeds), nonce)
    mismatches = []
    for item in dealt:
        position, text = item["position"], item["card"]
        if not 0 <= position < len(deck):
            raise InvalidRequest(
                f"Position {position} is beyond the {len(deck)}-card deck of {variant}.",
                code="position_out_of_range",
                position=position,
                deck_size=len(deck),
            )
        try:
            card = parse_card(text)
        except CardParseError:
            raise InvalidRequest(
                f"{text!r} is not a card such as 'Ah'.", code="invalid_card", card=text
            ) from None
        if deck[position] != card:
            mismatches.append(
                {
                    "position": position,
                    "card": format_card(card),
                    "deck_has": format_card(deck[position]),
                }
            )
    expected = hashlib.sha256(seed).hexdigest()
    matches = hmac.compare_digest(expected.encode(), commitment.lower().encode())
    return {
        "ok": matches and not mismatches,
        "commitment_matches": matches,
        "computed_commitment": expected,
        "mismatches": mismatches,
        "deck": [format_card(c) for c in deck],
    }
