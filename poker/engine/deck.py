"""Provably fair dealing: a committed server seed, client seeds and a public shuffle.

Before a hand the server publishes ``commitment(server_seed)``; after it, the seed itself.
Anyone can then recompute the deck with the algorithm below and check the cards dealt
(:func:`verify_deal`). Client seeds, chosen by the players, stop the server from picking
a seed that favours anyone: the server is bound to its seed before it sees them.

Algorithm ``poker-deck-v1`` (everything a third party needs to reimplement it):

0. ``server_seed`` is secret random bytes, at least 16 (:func:`new_server_seed` gives 32);
   ``client_seeds`` is a list of str (possibly empty); ``nonce`` an int in 0..2**64-1.
1. ``commitment = hex(SHA-256(server_seed))``, lower-case hex.
2. ``message = b"poker-deck-v1"
   || u32(len(client_seeds))
   || for each client seed, in order: u32(len(utf8(seed))) || utf8(seed)
   || u64(nonce)``
   where ``u32``/``u64`` are unsigned big-endian integers of 4/8 bytes. Every
   variable-length part is length-prefixed, so two different seed lists can never give
   the same message (``("ab", "c")`` and ``("a", "bc")`` differ).
3. ``key = HMAC-SHA256(key=server_seed, msg=message)``.
4. Byte stream: ``block_i = HMAC-SHA256(key=key, msg=u64(i))`` for ``i = 0, 1, 2, ...``,
   concatenated. It is read 4 bytes at a time as big-endian uint32 values ``x``.
5. Fisher-Yates, from the last position down: ``deck = list(cards)``; for
   ``i = len(deck) - 1`` down to ``1``: with ``bound = i + 1`` and
   ``limit = 2**32 - (2**32 mod bound)`` (the largest multiple of ``bound`` that is at
   most ``2**32``), read values until ``x < limit``, then ``j = x mod bound`` and swap
   ``deck[i]`` and ``deck[j]``. Rejecting ``x >= limit`` removes modulo bias.
6. The result is ``deck``; cards are dealt from the front (``deck[0]`` first).

>>> seed = bytes(32)
>>> deck = shuffle_deck(seed, range(52), client_seeds=["alice"], nonce=7)
>>> sorted(deck) == list(range(52))
True
>>> verify_deal(server_seed=seed, commitment=commitment(seed), cards=range(52),
...             client_seeds=["alice"], nonce=7, dealt=deck[:9])
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Sequence
from itertools import count
from typing import Protocol

__all__ = [
    "DeckSource",
    "FairDeck",
    "FixedDeck",
    "commitment",
    "new_server_seed",
    "shuffle_deck",
    "verify_deal",
]

DOMAIN = b"poker-deck-v1"
#: Server seeds shorter than this are refused: the seed is the only secret in the scheme.
MIN_SEED_BYTES = 16
_TWO_32 = 1 << 32
_UINT32S_PER_BLOCK = struct.Struct(">8I")


def new_server_seed() -> bytes:
    """A fresh 32-byte server seed from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


def commitment(server_seed: bytes) -> str:
    """The public commitment to a seed: lower-case hex SHA-256 of its bytes."""
    return _sha256_hex(server_seed)


def _sha256_hex(data: bytes) -> str:
    # verify_deal's keyword argument ``commitment`` shadows the function there.
    return hashlib.sha256(data).hexdigest()


def _message(client_seeds: Sequence[str], nonce: int) -> bytes:
    if isinstance(client_seeds, str):
        raise TypeError("client_seeds must be a sequence of str, not one str")
    if not isinstance(nonce, int) or not 0 <= nonce < 1 << 64:
        raise ValueError(f"nonce must be in 0..2**64-1, got {nonce}")
    parts = [DOMAIN, len(client_seeds).to_bytes(4, "big")]
    for seed in client_seeds:
        if not isinstance(seed, str):
            raise TypeError(f"client seeds must be str, got {seed!r}")
        raw = seed.encode("utf-8")
        parts += [len(raw).to_bytes(4, "big"), raw]
    parts.append(nonce.to_bytes(8, "big"))
    return b"".join(parts)


def _uint32_stream(key: bytes) -> Iterator[int]:
    for block in count():
        yield from _UINT32S_PER_BLOCK.unpack(hmac.digest(key, block.to_bytes(8, "big"), "sha256"))


def shuffle_deck(
    server_seed: bytes,
    cards: Sequence[int],
    client_seeds: Sequence[str] = (),
    nonce: int = 0,
) -> tuple[int, ...]:
    """The deck order for a hand under algorithm ``poker-deck-v1`` (module docstring).

    Deterministic: the same seed, cards, client seeds and nonce always give the same
    order. ``nonce`` separates hands dealt under one server seed.

    >>> shuffle_deck(bytes(32), [1, 2, 3]) == shuffle_deck(bytes(32), [1, 2, 3])
    True
    """
    if not isinstance(server_seed, bytes):
        raise TypeError(f"server_seed must be bytes, got {type(server_seed).__name__}")
    if len(server_seed) < MIN_SEED_BYTES:
        raise ValueError(f"server_seed must have at least {MIN_SEED_BYTES} bytes")
    key = hmac.digest(server_seed, _message(client_seeds, nonce), "sha256")
    stream = _uint32_stream(key)
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1
        limit = _TWO_32 - _TWO_32 % bound
        x = next(stream)
        while x >= limit:
            x = next(stream)
        j = x % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def verify_deal(
    *,
    server_seed: bytes,
    commitment: str,
    cards: Sequence[int],
    client_seeds: Sequence[str] = (),
    nonce: int = 0,
    dealt: Sequence[int],
) -> bool:
    """True if ``dealt`` (in dealing order) is how the committed seed deals ``cards``.

    Checks that ``server_seed`` hashes to ``commitment``, then that ``dealt`` is a prefix
    of the recomputed deck. Never raises: any mismatch or malformed input gives False.
    """
    try:
        expected = _sha256_hex(server_seed)
        if not isinstance(commitment, str) or not hmac.compare_digest(expected, commitment.lower()):
            return False
        deck = shuffle_deck(server_seed, cards, client_seeds, nonce)
    except (TypeError, ValueError):
        return False
    dealt = tuple(dealt)
    return len(dealt) <= len(deck) and deck[: len(dealt)] == dealt


class DeckSource(Protocol):
    """Where the engine gets each hand's deck order; inject a FairDeck or a FixedDeck."""

    def deck_order(self, cards: Sequence[int], *, nonce: int = 0) -> tuple[int, ...]:
        """The order in which ``cards`` are dealt for the hand numbered ``nonce``."""
        ...


class FairDeck:
    """A provably fair source: one committed server seed, hands separated by nonce.

    >>> source = FairDeck(client_seeds=["alice", "bob"])
    >>> len(source.commitment)
    64
    """

    def __init__(self, server_seed: bytes | None = None, client_seeds: Sequence[str] = ()):
        _message(client_seeds, 0)  # fail now, not at the first deal, on bad client seeds
        self.server_seed = new_server_seed() if server_seed is None else server_seed
        self.client_seeds = tuple(client_seeds)
        self.commitment = commitment(self.server_seed)

    def deck_order(self, cards: Sequence[int], *, nonce: int = 0) -> tuple[int, ...]:
        """:func:`shuffle_deck` of ``cards`` with this source's seeds and ``nonce``."""
        return shuffle_deck(self.server_seed, cards, self.client_seeds, nonce)

    def __repr__(self) -> str:
        # Never print the seed: it must stay secret until the hand is over.
        return f"FairDeck(commitment={self.commitment!r}, client_seeds={self.client_seeds!r})"


class FixedDeck:
    """A predetermined order, for tests and replaying recorded hands (e.g. PHH).

    The given cards are dealt first, in order; the rest of the requested deck follows in
    its own order, so a replay only needs the cards that were actually dealt.

    >>> FixedDeck([3, 1]).deck_order(range(4))
    (3, 1, 0, 2)
    """

    def __init__(self, cards: Sequence[int]):
        self.cards = tuple(cards)
        if len(set(self.cards)) != len(self.cards):
            raise ValueError(f"FixedDeck has duplicate cards: {self.cards}")

    def deck_order(self, cards: Sequence[int], *, nonce: int = 0) -> tuple[int, ...]:
        """The fixed cards, then the remaining ``cards``; the nonce is ignored.

        Raises ValueError if a fixed card is not in ``cards``.
        """
        available = tuple(cards)
        missing = set(self.cards).difference(available)
        if missing:
            raise ValueError(f"FixedDeck cards {sorted(missing)} are not in the deck")
        fixed = set(self.cards)
        return self.cards + tuple(c for c in available if c not in fixed)
