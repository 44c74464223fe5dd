"""Table money the wallet and the hand history both need: the seat ref that names a
player's stake at a table, and how a finished hand's result becomes settlement legs.

They live here, below the hand history and the table app, so that the settlement check
(``handhistory.verification``) and the table's money moves (``poker.money``) state them
once and import downwards.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: The receiver of a settlement leg that is the house's rake (the rake account's owner ref).
HOUSE = "house"


@dataclass(frozen=True, slots=True, order=True)
class SettlementLeg(Generic[K]):
    """One leg of a hand's settlement, the one shape of it: ``payer``'s stake pays
    ``amount`` to ``receiver`` (another seat's stake, or the house's rake). A seat is named
    by any key of its stake: its seat ref when posted (the house then ``HOUSE``), its
    account id when checked against the ledger (the house then its account's)."""

    payer: K
    receiver: K
    amount: int


def seat_ref(*, table_id: int, player_id: int) -> str:
    """The ledger owner ref of a player's stake at a table (it outlives the seat row)."""
    return f"table:{table_id}:user:{player_id}"


def settlement_legs(deltas: Sequence[tuple[K, int]], rake: int, house: K) -> list[SettlementLeg[K]]:
    """The linked legs settling a hand.

    ``deltas`` are (seat key, final - starting stack) and sum to ``-rake``; a key is any
    name of a seat stake (its account id, its seat ref). Losers pay winners and then the
    ``house``, in a fixed order, so the legs are a pure function of the hand's result:
    replayable, idempotent, and checkable by ``manage.py verify_event_store``.

    >>> settlement_legs([(1, -150), (2, 140), (3, 0)], 10, 99)
    [SettlementLeg(payer=1, receiver=2, amount=140), SettlementLeg(payer=1, receiver=99, amount=10)]
    """
    if sum(d for _, d in deltas) != -rake:
        raise ValueError(f"deltas {deltas} do not balance with rake {rake}")
    payers = [key for key, d in deltas if d < 0]
    owed = [-d for _, d in deltas if d < 0]
    receivers = [key for key, d in deltas if d > 0] + ([house] if rake else [])
    due = [d for _, d in deltas if d > 0] + ([rake] if rake else [])
    legs: list[SettlementLeg[K]] = []
    i = j = 0
    while i < len(payers) and j < len(receivers):
        amount = min(owed[i], due[j])
        legs.append(SettlementLeg(payers[i], receivers[j], amount))
        owed[i] -= amount
        due[j] -= amount
        if owed[i] == 0:
            i += 1
        if due[j] == 0:
            j += 1
    return legs
