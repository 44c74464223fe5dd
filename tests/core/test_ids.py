"""core.ids: the derived ids of stored rows never change (a retry must find its row)."""

from __future__ import annotations

import uuid

from core import ids
from poker.money import transfer_id
from wallet.services import derived_id


def test_the_wallet_derives_the_ids_it_always_derived():
    # The value computed with the namespace and separator the wallet used before core.ids.
    before = uuid.uuid5(uuid.UUID("0b5e7f3a-8c1d-4e2f-9a6b-7c3d2e1f0a9b"), "deposit\n7\nkey-1")
    assert derived_id("deposit", 7, "key-1") == before


def test_the_table_money_derives_the_ids_it_always_derived():
    before = uuid.uuid5(uuid.UUID("6f1d8a52-3c1e-4d0a-9a57-7c6b1f0e2b11"), "buy-in:3:9:k")
    assert transfer_id("buy-in", 3, 9, "k") == before


def test_the_three_families_never_share_an_id():
    parts = ("same", 1)
    namespaces = (ids.WALLET, ids.TABLE_MONEY, ids.REQUEST)
    assert len({ids.derived_uuid(ns, *parts, sep="\n") for ns in namespaces}) == 3
