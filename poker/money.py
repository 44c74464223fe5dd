"""The table layer's money movements: the wallet's table-money services, called inside
the table command's transaction.

Seat stakes live in a ``seat_stake`` account per (table, player) -- the seat ref
``table:<id>:user:<id>`` -- and the player's wallet is their ``player_cash`` account.
Buy-ins and cash-outs move chips between the two; a finished hand moves chips between
seat stakes and takes the rake to the house as ONE linked posting. Transfer ids are
derived (uuid5) from what caused them -- the command key or the hand -- so a retried
command can never move money twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Hashable, Sequence
from typing import TypeVar

from ledger.models import Account, AccountKind
from wallet.services import (
    RakeCharge,
    SeatPayment,
    hand_settle,
    house_account,
    player_account,
    seat_account,
    seat_buy_in,
    seat_cash_out,
)

K = TypeVar("K", bound=Hashable)

_NAMESPACE = uuid.UUID("6f1d8a52-3c1e-4d0a-9a57-7c6b1f0e2b11")


def transfer_id(*parts: object) -> uuid.UUID:
    """A deterministic transfer id for the business fact named by ``parts``."""
    return uuid.uuid5(_NAMESPACE, ":".join(str(p) for p in parts))


def seat_ref(*, table_id: int, player_id: int) -> str:
    """The ledger owner ref of a player's stake at a table (it outlives the seat row)."""
    return f"table:{table_id}:user:{player_id}"


def player_cash_account(*, player_id: int, currency: str) -> Account:
    """The player's wallet account in ``currency``."""
    return player_account(user_id=player_id, currency=currency)


def seat_stake_account(*, table_id: int, player_id: int, currency: str) -> Account:
    """The account holding a player's chips at a table."""
    return seat_account(
        seat_ref=seat_ref(table_id=table_id, player_id=player_id), currency=currency
    )


def house_rake_account(*, currency: str) -> Account:
    """Where rake goes."""
    return house_account(kind=AccountKind.HOUSE_RAKE, currency=currency)


def buy_in(*, table_id: int, player_id: int, amount: int, currency: str, key: uuid.UUID) -> None:
    """Wallet -> seat stake (buy-in or top-up), in the caller's transaction."""
    seat_buy_in(
        user_id=player_id,
        seat_ref=seat_ref(table_id=table_id, player_id=player_id),
        amount=amount,
        currency=currency,
        transfer_id=key,
    )


def cash_out(*, table_id: int, player_id: int, amount: int, currency: str, key: uuid.UUID) -> None:
    """Seat stake -> wallet, in the caller's transaction."""
    seat_cash_out(
        user_id=player_id,
        seat_ref=seat_ref(table_id=table_id, player_id=player_id),
        amount=amount,
        currency=currency,
        transfer_id=key,
    )


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
    payers = [[key, -d] for key, d in deltas if d < 0]
    receivers = [[key, d] for key, d in deltas if d > 0]
    if rake:
        receivers.append([house, rake])
    legs: list[tuple[K, K, int]] = []
    i = j = 0
    while i < len(payers) and j < len(receivers):
        amount = min(payers[i][1], receivers[j][1])
        legs.append((payers[i][0], receivers[j][0], amount))
        payers[i][1] -= amount
        receivers[j][1] -= amount
        if payers[i][1] == 0:
            i += 1
        if receivers[j][1] == 0:
            j += 1
    return legs


_HOUSE = "house"


def settle_hand(
    *, hand_id: int, table_id: int, currency: str, results: Sequence[tuple[int, int]], rake: int
) -> None:
    """Posts the hand's settlement as one linked, all-or-nothing posting inside the
    caller's transaction; ``results`` are (player id, final - starting stack). Legs are
    named by seat ref: the wallet resolves each account once."""
    refs = [(seat_ref(table_id=table_id, player_id=pid), d) for pid, d in results]
    legs = settlement_legs(refs, rake, _HOUSE)
    if legs:
        hand_settle(
            hand_ref=f"hand:{hand_id}",
            currency=currency,
            payments=[
                SeatPayment(from_seat_ref=payer, to_seat_ref=receiver, amount=amount)
                for payer, receiver, amount in legs
                if receiver != _HOUSE
            ],
            rake=[
                RakeCharge(seat_ref=payer, amount=amount)
                for payer, receiver, amount in legs
                if receiver == _HOUSE
            ],
        )
