"""The table layer's money movements: the wallet's table-money services, called inside
the table command's transaction.

Seat stakes live in a ``seat_stake`` account per (table, player) -- the seat ref
(``wallet.tables.seat_ref``) -- and the player's wallet is their ``player_cash`` account.
Buy-ins and cash-outs move chips between the two; a finished hand moves chips between
seat stakes and takes the rake to the house as ONE linked posting. Transfer ids are
derived (uuid5) from what caused them -- the command key or the hand -- so a retried
command can never move money twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from core import ids
from core.ids import derived_uuid
from ledger.models import Account, AccountKind
from wallet.services import (
    hand_settle,
    house_account,
    player_account,
    seat_account,
    seat_buy_in,
    seat_cash_out,
)
from wallet.tables import HOUSE, seat_ref, settlement_legs


def transfer_id(*parts: object) -> uuid.UUID:
    """A deterministic transfer id for the business fact named by ``parts``."""
    return derived_uuid(ids.TABLE_MONEY, *parts, sep=":")


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


def settle_hand(
    *, hand_id: int, table_id: int, currency: str, results: Sequence[tuple[int, int]], rake: int
) -> None:
    """Posts the hand's settlement as one linked, all-or-nothing posting inside the
    caller's transaction; ``results`` are (player id, final - starting stack). Legs are
    named by seat ref: the wallet resolves each account once."""
    refs = [(seat_ref(table_id=table_id, player_id=pid), d) for pid, d in results]
    legs = settlement_legs(refs, rake, HOUSE)
    if legs:
        hand_settle(hand_ref=f"hand:{hand_id}", currency=currency, legs=legs)
