"""The table layer's money movements, all through the ledger, inside the caller's transaction.

Seat stakes live in a ``seat_stake`` account per (table, player); the player's wallet is
their ``player_cash`` account. Buy-ins and cash-outs move chips between the two; a finished
hand moves chips between seat stakes and takes the rake to the house, as ONE linked posting.
Transfer ids are derived (uuid5) from what caused them -- the command key or the hand --
so a retried command can never move money twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from ledger.models import Account, AccountKind
from ledger.posting import TransferRequest
from ledger.services import ledger_account_open, ledger_post_transfers_in_transaction

_NAMESPACE = uuid.UUID("6f1d8a52-3c1e-4d0a-9a57-7c6b1f0e2b11")


def transfer_id(*parts: object) -> uuid.UUID:
    """A deterministic transfer id for the business fact named by ``parts``."""
    return uuid.uuid5(_NAMESPACE, ":".join(str(p) for p in parts))


def player_cash_account(*, player_id: int, currency: str) -> Account:
    """The player's wallet account in ``currency`` (the wallet's convention)."""
    return ledger_account_open(
        kind=AccountKind.PLAYER_CASH, owner_ref=f"user:{player_id}", currency=currency
    )


def seat_stake_account(*, table_id: int, player_id: int, currency: str) -> Account:
    """The account holding a player's chips at a table."""
    return ledger_account_open(
        kind=AccountKind.SEAT_STAKE,
        owner_ref=f"table:{table_id}:user:{player_id}",
        currency=currency,
    )


def house_rake_account(*, currency: str) -> Account:
    """Where rake goes."""
    return ledger_account_open(
        kind=AccountKind.HOUSE_RAKE, owner_ref="house", currency=currency, must_not_overdraw=False
    )


def move_chips(
    *, debit: Account, credit: Account, amount: int, code: str, reference: str, key: uuid.UUID
) -> None:
    """One posted transfer inside the caller's transaction (buy-in, top-up, cash-out)."""
    ledger_post_transfers_in_transaction(
        transfers=[
            TransferRequest(
                id=key,
                debit_account_id=debit.pk,
                credit_account_id=credit.pk,
                amount=amount,
                currency=debit.currency,
                code=code,
                reference=reference,
            )
        ]
    )


def settlement_legs(
    deltas: Sequence[tuple[int, int]], rake: int, house_account_id: int
) -> list[tuple[int, int, int]]:
    """Linked legs (debit account, credit account, amount) settling a hand.

    ``deltas`` are (seat stake account id, final - starting stack); they sum to ``-rake``.
    Losers pay winners and then the house, in a fixed order, so the legs are a pure
    function of the hand's result (replayable and idempotent).

    >>> settlement_legs([(1, -150), (2, 140), (3, 0)], 10, 99)
    [(1, 2, 140), (1, 99, 10)]
    """
    if sum(d for _, d in deltas) != -rake:
        raise ValueError(f"deltas {deltas} do not balance with rake {rake}")
    payers = [[acc, -d] for acc, d in deltas if d < 0]
    receivers = [[acc, d] for acc, d in deltas if d > 0]
    if rake:
        receivers.append([house_account_id, rake])
    legs: list[tuple[int, int, int]] = []
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


def settle_hand(
    *, hand_id: int, currency: str, deltas: Sequence[tuple[int, int]], rake: int
) -> list[tuple[int, int, int]]:
    """Posts the hand's settlement (seat stakes -> seat stakes and -> house rake) as one
    linked, all-or-nothing posting inside the caller's transaction; returns the legs."""
    house = house_rake_account(currency=currency)
    legs = settlement_legs(deltas, rake, house.pk)
    if legs:
        ledger_post_transfers_in_transaction(
            transfers=[
                TransferRequest(
                    id=transfer_id("hand", hand_id, "leg", k),
                    debit_account_id=debit,
                    credit_account_id=credit,
                    amount=amount,
                    currency=currency,
                    code="hand_rake" if credit == house.pk else "hand_settlement",
                    reference=f"hand:{hand_id}",
                )
                for k, (debit, credit, amount) in enumerate(legs)
            ]
        )
    return legs
