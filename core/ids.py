"""Deterministic ids: every uuid5 the project derives comes from here.

An id derived from what caused it (an idempotency key, a hand) makes a retried write find
the first one's row instead of doing the work twice: the ledger's transfer ids, the
wallet's deposits and withdrawals, the rows a REST request creates.

Three namespaces exist, one per family of derived ids. They cannot be merged: each has
derived the ids of rows already stored, and a retry after a change of namespace (or of the
separator that joins the parts) would derive a new id and move money a second time. So
each keeps its value under its name here, and a new kind of derived id joins the family
it belongs to.
"""

from __future__ import annotations

import uuid

#: Wallet money: deposits, withdrawals, adjustments, grants, reloads (``wallet.services``).
WALLET = uuid.UUID("0b5e7f3a-8c1d-4e2f-9a6b-7c3d2e1f0a9b")
#: Table money: buy-ins, top-ups, cash-outs (``poker.money.transfer_id``).
TABLE_MONEY = uuid.UUID("6f1d8a52-3c1e-4d0a-9a57-7c6b1f0e2b11")
#: What a REST request creates, from its Idempotency-Key (``core.idempotency``).
REQUEST = uuid.UUID("6f1c9a52-3d0e-4c8b-9a51-2b7d4f0e8c13")


def derived_uuid(namespace: uuid.UUID, *parts: object, sep: str) -> uuid.UUID:
    """The id of the fact named by ``parts`` (joined by ``sep``) in ``namespace``."""
    return uuid.uuid5(namespace, sep.join(str(p) for p in parts))
