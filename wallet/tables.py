"""Table money the wallet and the hand history both need: the seat ref that names a
player's stake at a table, and how a finished hand's result becomes settlement legs.

They live here, below the hand history and the table app, so that the settlement check
(``handhistory.verification``) and the table's money moves (``poker.money``) state them
once and import downwards.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def seat_ref(*, table_id: int, player_id: int) -> str:
    """The ledger owner ref of a player's stake at a table (it outlives the seat row)."""
    return f"table:{table_id}:user:{player_id}"


def settlement_legs(deltas: Sequence[tuple[K, int]], rake: int, house: K) -> list[tuple[K, K, int]]:
    """Linked legs (payer, receiver, amount) settling a hand.

    ``deltas`` are (seat key, final - starting stack) and sum to ``-rake``; a key is any
    name of a seat stake (its account id, its seat ref). Losers pay winners and then the
    ``house``, in a fixed order, so the legs are a pure function of the hand's result:
    replayable, idempotent, and checkable by ``manage.py verify_event_store``.

    >>> settlement_legs([(1, -150), (2, 140), (3, 0)], 10, 99)
    [(1, 2, 140), (1, 99, 10)]
    """
    if sum(d for _, d in deltas) != -rake:
        raise ValueError(f"deltas {deltas} do not balance with rake {rake}")
    payers = [key for key, d in deltas if d < 0]
    owed = [-d for _, d in deltas if d < 0]
    receivers = [key for key, d in deltas if d > 0] + ([house] if rake else [])
    due = [d for _, d in deltas if d > 0] + ([rake] if rake else [])
    legs: list[tuple[K, K, int]] = []
    i = j = 0
    while i < len(payers) and j < len(receivers):
        amount = min(owed[i], due[j])
        legs.append((payers[i], receivers[j], amount))
        owed[i] -= amount
        due[j] -= amount
        if owed[i] == 0:
            i += 1
        if due[j] == 0:
            j += 1
    return legs
