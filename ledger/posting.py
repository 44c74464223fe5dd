"""The one posting core: every balance change in the system goes through ``post_legs``.

A *posting* is a list of legs applied atomically (all or none, "linked" legs):

* ``TransferRequest`` -- a posted transfer, or with ``pending=True`` a hold (two-phase
  transfer: the amount is reserved on the debit account, nothing moves yet);
* ``PendingResolution`` -- posts (all or part; the rest is released) or voids a hold by
  inserting a NEW transfer that references it. The pending row itself never changes.

The rules every account of a posting must meet (open, in the legs' currency, within 64
bits, not overdrawn) are stated once, in ``_RULES``, and always judged by the database.
On PostgreSQL a posting is ONE statement (``_checked_write``): lock the accounts one by
one in ascending id order (so two postings never deadlock), judge every rule on the
locked rows, update every balance or none, insert the transfers. In autocommit mode
(``post_durable``) that statement is the whole transaction: one round trip. The database
also refuses an overdraft on its own (CHECK ``ledger_account_no_overdraft``).

When the statement writes nothing -- a refusal, a replay, a hold already resolved -- and
always on SQLite, the careful path runs: lock the rows and judge each rule apart
(``_judge``, the same rules) to raise the typed error of the first one broken
(``InsufficientFunds``, ``CurrencyMismatch``...), write, or find the stored transfers.

Idempotency: a transfer id posted again with the same content returns the original
transfers (``replayed=True``); with different content it is a ``TransferConflict``. A unique violation on insert (two postings racing on the same new
id) is resolved the same way, by re-reading.

Transaction contract: ``post_legs`` itself must run inside ``transaction.atomic``; use
``post_durable`` (its own, outermost transaction) or ``post_in_caller_transaction``
(inside a transaction the caller owns, behind a savepoint so a refusal leaves no trace).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.db import on_postgres, pg_cursor
from ledger.errors import (
    AccountClosed,
    AccountNotFound,
    BalanceOutOfRange,
    CurrencyMismatch,
    HoldAlreadyResolved,
    InsufficientFunds,
    InvalidAmount,
    InvalidTransfer,
    LedgerError,
    PendingTransferNotFound,
    TransferConflict,
    TransferNotPending,
)
from ledger.models import Transfer, TransferStatus

#: Amounts and balances are PostgreSQL ``bigint``.
MAX_AMOUNT = 2**63 - 1
MIN_BALANCE = -(2**63)
CURRENCY_RE = re.compile(r"^(?:[A-Z]{3}|CHIPS)$")
MAX_LEGS = 1000
_CODE_MAX = 64
_REFERENCE_MAX = 128


class TransactionRequired(RuntimeError):
    """A function meant to run inside the caller's transaction was called outside one."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TransferRequest:
    """Move ``amount`` from the debit to the credit account (or hold it, ``pending=True``).

    ``id`` is the idempotency key: post the same id again and you get the original back.

    >>> TransferRequest(id=uuid.uuid4(), debit_account_id=1, credit_account_id=2,
    ...                 amount=500, currency="EUR", code="deposit")  # doctest: +ELLIPSIS
    TransferRequest(...)
    """

    id: uuid.UUID
    debit_account_id: int
    credit_account_id: int
    amount: int
    currency: str
    code: str
    pending: bool = False
    reference: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class PendingResolution:
    """Post (``void=False``) or void the pending transfer ``pending_id``.

    ``amount`` posts part of the hold (the rest is released); ``None`` posts all of it.
    ``code`` defaults to the pending transfer's code.
    """

    id: uuid.UUID
    pending_id: uuid.UUID
    void: bool = False
    amount: int | None = None
    code: str = ""
    reference: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)


LegRequest = TransferRequest | PendingResolution


@dataclass(frozen=True, kw_only=True, slots=True)
class TransferRecord:
    """A transfer as stored (read-only view returned by the services)."""

    id: uuid.UUID
    debit_account_id: int
    credit_account_id: int
    amount: int
    currency: str
    code: str
    status: str
    pending_id: uuid.UUID | None
    reference: str
    metadata: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, kw_only=True, slots=True)
class Posting:
    """The outcome of one posting: its transfers, and whether it was a replay."""

    transfers: tuple[TransferRecord, ...]
    replayed: bool


@dataclass(frozen=True, slots=True)
class _Leg:
    """A normalised leg: accounts, amount and status resolved, metadata as JSON text."""

    id: uuid.UUID
    debit: int
    credit: int
    amount: int
    currency: str
    code: str
    status: str
    pending_id: uuid.UUID | None
    pending_amount: int
    reference: str
    metadata: dict[str, Any]

    def content(self) -> tuple[Any, ...]:
        return (
            self.debit,
            self.credit,
            self.amount,
            self.currency,
            self.code,
            self.status,
            self.pending_id,
            self.reference,
            self.metadata,
        )


# --- validation -------------------------------------------------------------------


def check_amount(value: object, *, name: str = "amount") -> int:
    """``value`` if it is a strict integer in 1..2**63-1, else ``InvalidAmount``: the one
    definition of a valid amount (the wallet's and the tables' checks call it).

    Booleans, floats (even ``10.0``) and strings (even ``"10"``) are refused: money is
    never coerced.
    """
    if type(value) is not int or not 0 < value <= MAX_AMOUNT:
        raise InvalidAmount(
            f"{name} must be an integer from 1 to {MAX_AMOUNT} minor units, got {value!r}.",
            value=repr(value),
        )
    return value


def check_currency(value: object) -> str:
    """An ISO 4217 code (``EUR``) or ``CHIPS`` (play money)."""
    if not isinstance(value, str) or not CURRENCY_RE.match(value):
        raise InvalidTransfer(
            f"currency must be an ISO 4217 code or CHIPS, got {value!r}.",
            code="invalid_currency",
            value=repr(value),
        )
    return value


def _check_text(value: object, name: str, max_length: int, *, required: bool) -> str:
    if not isinstance(value, str) or len(value) > max_length or (required and not value):
        raise InvalidTransfer(
            f"{name} must be a {'non-empty ' if required else ''}string of at most "
            f"{max_length} characters, got {value!r}.",
            code=f"invalid_{name}",
        )
    return value


def _check_metadata(value: object) -> dict[str, Any]:
    try:
        if not isinstance(value, Mapping):
            raise TypeError
        # A JSON round trip: what we compare on replay is exactly what the database holds.
        normalised: dict[str, Any] = json.loads(json.dumps(dict(value), sort_keys=True))
    except (TypeError, ValueError):
        raise InvalidTransfer(
            "metadata must be a JSON-serialisable mapping.", code="invalid_metadata"
        ) from None
    return normalised


def _check_id(value: object, name: str = "id") -> uuid.UUID:
    if not isinstance(value, uuid.UUID):
        raise InvalidTransfer(f"{name} must be a UUID, got {value!r}.", code="invalid_id")
    return value


def _normalise(requests: Sequence[LegRequest]) -> list[_Leg]:
    """Validated legs; resolutions are completed from their pending transfers."""
    if not 0 < len(requests) <= MAX_LEGS:
        raise InvalidTransfer(
            f"a posting has 1 to {MAX_LEGS} transfers, got {len(requests)}.",
            code="invalid_posting_size",
        )
    ids = [_check_id(r.id) for r in requests]
    if len(set(ids)) != len(ids):
        raise InvalidTransfer("transfer ids repeat within one posting.", code="duplicate_id")
    resolutions = [r for r in requests if isinstance(r, PendingResolution)]
    pending_ids = [_check_id(r.pending_id, "pending_id") for r in resolutions]
    if len(set(pending_ids)) != len(pending_ids):
        raise InvalidTransfer(
            "a pending transfer is resolved twice within one posting.", code="duplicate_pending"
        )
    pendings = _load_pendings(pending_ids) if pending_ids else {}

    legs: list[_Leg] = []
    for request in requests:
        reference = _check_text(request.reference, "reference", _REFERENCE_MAX, required=False)
        metadata = _check_metadata(request.metadata)
        if isinstance(request, TransferRequest):
            amount = check_amount(request.amount)
            currency = check_currency(request.currency)
            code = _check_text(request.code, "code", _CODE_MAX, required=True)
            if (
                type(request.debit_account_id) is not int
                or type(request.credit_account_id) is not int
            ):
                raise InvalidTransfer("account ids must be integers.", code="invalid_account")
            if request.debit_account_id == request.credit_account_id:
                raise InvalidTransfer(
                    f"debit and credit account are the same ({request.debit_account_id}).",
                    code="same_account",
                )
            legs.append(
                _Leg(
                    request.id,
                    request.debit_account_id,
                    request.credit_account_id,
                    amount,
                    currency,
                    code,
                    TransferStatus.PENDING if request.pending else TransferStatus.POSTED,
                    None,
                    0,
                    reference,
                    metadata,
                )
            )
            continue
        pending = pendings[request.pending_id]
        code = _check_text(request.code, "code", _CODE_MAX, required=False) or pending.code
        if request.void:
            if request.amount is not None:
                raise InvalidTransfer(
                    "a void releases the whole hold: give no amount.", code="invalid_amount"
                )
            amount, status = pending.amount, TransferStatus.VOIDED
        else:
            amount = pending.amount if request.amount is None else check_amount(request.amount)
            if amount > pending.amount:
                raise InvalidTransfer(
                    f"cannot post {amount} from a hold of {pending.amount} "
                    f"(pending transfer {pending.id}).",
                    code="amount_exceeds_hold",
                    pending_id=str(pending.id),
                    held=pending.amount,
                )
            status = TransferStatus.POSTED_FROM_PENDING
        legs.append(
            _Leg(
                request.id,
                pending.debit_account_id,
                pending.credit_account_id,
                amount,
                pending.currency,
                code,
                status,
                pending.id,
                pending.amount,
                reference,
                metadata,
            )
        )
    return legs


def _load_pendings(pending_ids: list[uuid.UUID]) -> dict[uuid.UUID, Transfer]:
    found = {t.id: t for t in Transfer.objects.filter(id__in=pending_ids)}
    for pending_id in pending_ids:
        pending = found.get(pending_id)
        if pending is None:
            raise PendingTransferNotFound(
                f"no pending transfer {pending_id}.", pending_id=str(pending_id)
            )
        if pending.status != TransferStatus.PENDING:
            raise TransferNotPending(
                f"transfer {pending_id} is {pending.status}, not pending.",
                pending_id=str(pending_id),
                status=pending.status,
            )
    return found


# --- effects ------------------------------------------------------------------------


def _effects(legs: list[_Leg]) -> dict[int, list[int]]:
    """Per account: [balance delta, held delta]; each within 64 bits (the rules' SQL
    relies on it), else ``BalanceOutOfRange``."""
    deltas: dict[int, list[int]] = {}
    for leg in legs:
        debit = deltas.setdefault(leg.debit, [0, 0])
        if leg.status == TransferStatus.PENDING:
            debit[1] += leg.amount
            deltas.setdefault(leg.credit, [0, 0])
            continue
        if leg.pending_id is not None:  # a resolution releases the whole hold
            debit[1] -= leg.pending_amount
        if leg.status != TransferStatus.VOIDED:
            debit[0] -= leg.amount
            deltas.setdefault(leg.credit, [0, 0])[0] += leg.amount
    for leg in legs:
        for account_id in (leg.debit, leg.credit):
            if not all(MIN_BALANCE <= d <= MAX_AMOUNT for d in deltas.get(account_id, ())):
                raise BalanceOutOfRange(
                    f"The posting moves more {leg.currency} through one account than a 64-bit "
                    "balance holds.",
                    account_id=account_id,
                    currency=leg.currency,
                )
    return deltas


def _involved(leg: _Leg) -> tuple[int, ...]:
    """The accounts a leg must find open and in its currency. A void only releases the
    hold on the debit account: its credit account is not involved (not even locked)."""
    return (leg.debit,) if leg.status == TransferStatus.VOIDED else (leg.debit, leg.credit)


def _expected_currencies(legs: list[_Leg]) -> dict[int, str | None]:
    """The currency every involved account must hold; None for an account named in two
    currencies (a certain refusal, which the careful path words)."""
    expected: dict[int, str | None] = {}
    for leg in legs:
        for account_id in _involved(leg):
            if expected.setdefault(account_id, leg.currency) != leg.currency:
                expected[account_id] = None
    return expected


# --- the rules every account of a posting must meet -----------------------------------


@dataclass(frozen=True, slots=True)
class _Judged:
    """An involved account as the careful path read it (locked), and the posting's
    effect on it."""

    id: int
    currency: str
    balance: int
    held: int
    delta: list[int]


def _refuse_closed(a: _Judged, legs: list[_Leg]) -> LedgerError:
    return AccountClosed(f"The {a.currency} account is closed.", account_id=a.id)


def _refuse_currency(a: _Judged, legs: list[_Leg]) -> LedgerError:
    leg = next(x for x in legs if a.id in _involved(x) and x.currency != a.currency)
    return CurrencyMismatch(
        f"Transfer {leg.id} is in {leg.currency} but the account holds {a.currency}.",
        transfer_id=str(leg.id),
        account_id=a.id,
        account_currency=a.currency,
        currency=leg.currency,
    )


def _refuse_range(a: _Judged, legs: list[_Leg]) -> LedgerError:
    return BalanceOutOfRange(
        f"The posting would take a {a.currency} balance beyond the 64-bit range.",
        account_id=a.id,
        currency=a.currency,
    )


def _refuse_overdraft(a: _Judged, legs: list[_Leg]) -> LedgerError:
    d_balance, d_held = a.delta
    return InsufficientFunds(
        f"Insufficient funds: {a.balance - a.held} {a.currency} available, "
        f"{d_held - d_balance} needed.",
        account_id=a.id,
        currency=a.currency,
        available=a.balance - a.held,
        required=d_held - d_balance,
    )


#: THE rules, each stated once, in SQL over the locked account row ``a`` and the posting's
#: effect on it ``d`` (``cur``: the currency its legs name, NULL for two; ``dbal``,
#: ``dheld``: the balance and held deltas), with the refusal that words a breach. Both
#: paths evaluate them in the database: the one checked statement (PostgreSQL's
#: ``_CHECKED_WRITE``: all of them, as one verdict) and the careful path's ``_judge`` (each
#: apart, to name the first one broken; on SQLite too). They are written so that no sum
#: can overflow in either database's arithmetic (deltas are within 64 bits: ``_effects``;
#: an overdrawn account's ``balance - held`` is never negative: the account's CHECK).
_RULES: tuple[tuple[str, Callable[[_Judged, list[_Leg]], LedgerError]], ...] = (
    # Open.
    ("NOT a.closed", _refuse_closed),
    # In the currency of every leg that names it.
    ("a.currency = d.cur", _refuse_currency),
    # Balance and held stay within 64 bits (held never below 0).
    (
        f"CASE WHEN d.dbal >= 0 THEN a.balance <= {MAX_AMOUNT} - d.dbal "
        f"ELSE a.balance >= {MIN_BALANCE + 1} - 1 - d.dbal END "
        f"AND CASE WHEN d.dheld >= 0 THEN a.held <= {MAX_AMOUNT} - d.dheld "
        "ELSE a.held + d.dheld >= 0 END",
        _refuse_range,
    ),
    # An account that must not overdraw is left with available >= 0, unless the posting
    # adds to what it has available (a credit to an account short after a release).
    (
        "NOT (a.must_not_overdraw AND d.dbal < d.dheld AND a.balance - a.held + d.dbal < d.dheld)",
        _refuse_overdraft,
    ),
)
#: Whether an account may take the posting: every rule.
_VERDICT = " AND ".join(f"({sql})" for sql, _ in _RULES)


# --- SQL ----------------------------------------------------------------------------


def _cursor() -> Any:
    """The hot path's cursor: ``core.db.pg_cursor`` on PostgreSQL (its statements are
    prepared), Django's cursor elsewhere (SQLite)."""
    return pg_cursor() if on_postgres() else connection.cursor()


def _judge(legs: list[_Leg], deltas: dict[int, list[int]]) -> None:
    """Locks the posting's accounts in ascending id order (PostgreSQL; on SQLite
    ``BEGIN IMMEDIATE`` already holds the database) and raises the refusal of the first
    rule one of them breaks (``AccountNotFound`` for one that does not exist)."""
    currencies = _expected_currencies(legs)
    accounts = sorted(deltas)
    row = "(CAST(%s AS BIGINT), CAST(%s AS NUMERIC), CAST(%s AS NUMERIC), CAST(%s AS VARCHAR(8)))"
    rules = ", ".join(f"coalesce(({sql}), false)" for sql, _ in _RULES)
    lock = " FOR UPDATE OF a" if on_postgres() else ""
    # Only constants and placeholders are interpolated; values go as parameters.
    sql = (
        f"WITH d (id, dbal, dheld, cur) AS (VALUES {', '.join([row] * len(accounts))}) "  # noqa: S608
        f"SELECT a.id, a.currency, a.balance, a.held, {rules} "
        f"FROM d JOIN ledger_account AS a ON a.id = d.id ORDER BY a.id{lock}"
    )
    params = [p for a in accounts for p in (a, *deltas[a], currencies[a])]
    with connection.wrap_database_errors, _cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    found = {r[0] for r in rows}
    missing = next((a for a in accounts if a not in found), None)
    if missing is not None:
        raise AccountNotFound("No such account.", account_id=missing)
    judged = [(_Judged(r[0], r[1], r[2], r[3], deltas[r[0]]), r[4:]) for r in rows]
    for i, (_sql, refusal) in enumerate(_RULES):
        for account, verdicts in judged:
            if not verdicts[i]:
                raise refusal(account, legs)


_COLUMNS = (
    "id, debit_account_id, credit_account_id, amount, currency, code, status, pending_id, "
    "reference, metadata, created_at"
)
#: PostgreSQL: the whole posting as ONE statement over arrays, so its text -- and its
#: prepared plan -- is the same for every posting (see ``_checked_write``).
_CHECKED_WRITE = f"""
WITH d AS (
    SELECT * FROM unnest(%(accounts)s::bigint[], %(balance)s::numeric[], %(held)s::numeric[],
                         %(currencies)s::varchar[]) AS d (id, dbal, dheld, cur)
), locked AS (
    SELECT {_VERDICT} AS fine FROM d CROSS JOIN LATERAL (
        SELECT closed, currency, balance, held, must_not_overdraw
        FROM ledger_account WHERE id = d.id FOR UPDATE
    ) AS a
), ok AS (
    SELECT count(*) = %(n_accounts)s AND coalesce(bool_and(fine), false) AS verdict FROM locked
), moved AS (
    UPDATE ledger_account a
    SET balance = a.balance + d.dbal, held = a.held + d.dheld, version = a.version + 1
    FROM d
    -- The ANY lets the generic plan reach the rows by primary key instead of
    -- hashing d against a scan of every account (measured: ~120 us a posting).
    WHERE a.id = ANY(%(accounts)s::bigint[]) AND a.id = d.id
      AND (SELECT verdict FROM ok)
      AND set_config('ledger.posting', 'on', true) = 'on'
    RETURNING set_config('ledger.posting', 'off', true)
)
INSERT INTO ledger_transfer ({_COLUMNS})
SELECT t.id, t.debit, t.credit, t.amount, t.currency, t.code, t.status, t.pending_id,
       t.reference, t.metadata::jsonb, %(now)s::timestamptz
FROM unnest(%(ids)s::uuid[], %(debits)s::bigint[], %(credits)s::bigint[],
            %(amounts)s::bigint[], %(leg_currencies)s::varchar[], %(codes)s::varchar[],
            %(statuses)s::varchar[], %(leg_pending_ids)s::uuid[], %(references)s::varchar[],
            %(metadata)s::text[])
     AS t (id, debit, credit, amount, currency, code, status, pending_id, reference, metadata)
WHERE (SELECT count(*) FROM moved) = %(n_accounts)s
"""  # noqa: S608 - only constants are interpolated; values are parameters


def _checked_write(
    deltas: dict[int, list[int]],
    legs: list[_Leg],
    currencies: dict[int, str | None],
    now: datetime,
) -> bool:
    """PostgreSQL: writes the whole posting with ONE statement (one round trip; in
    autocommit mode its own transaction); False when an account refused it.

    * ``locked`` locks each account by its primary key, in ascending id order: the
      account array is sorted and a lateral subquery with ``FOR UPDATE`` locks one row
      per element, in turn -- so two postings never deadlock. It also judges each row by
      ``_RULES`` (open, the leg's currency, inside 64 bits, no overdraft);
    * ``ok``: every account found and fine. It is an InitPlan of the update, so every
      lock is taken before the first row changes;
    * ``moved`` updates every account or none (the verdict is the same for all). Its
      WHERE clause opens the ``ledger.posting`` window the account trigger requires and
      RETURNING closes it;
    * the transfers are inserted only if every account moved, ordered by id (racing
      batches sharing ids cannot deadlock on the primary key).

    Idempotency needs no look-up here: a transfer id already stored (or a second
    resolution of a hold, ``ledger_transfer_resolved_once``) fails the INSERT on its
    unique index, which undoes the whole statement; the callers then re-read
    (``_replay_or_raise``). The statement's text is the same for every posting, so it is
    parsed and planned once per connection.
    """
    accounts = sorted(deltas)
    ordered = sorted(legs, key=lambda x: x.id)
    params = {
        "accounts": accounts,
        "balance": [deltas[a][0] for a in accounts],
        "held": [deltas[a][1] for a in accounts],
        "currencies": [currencies[a] for a in accounts],
        "n_accounts": len(accounts),
        "ids": [leg.id for leg in ordered],
        "debits": [leg.debit for leg in ordered],
        "credits": [leg.credit for leg in ordered],
        "amounts": [leg.amount for leg in ordered],
        "leg_currencies": [leg.currency for leg in ordered],
        "codes": [leg.code for leg in ordered],
        "statuses": [leg.status for leg in ordered],
        "leg_pending_ids": [leg.pending_id for leg in ordered],
        "references": [leg.reference for leg in ordered],
        "metadata": [json.dumps(leg.metadata) for leg in ordered],
        "now": now,
    }
    with connection.wrap_database_errors, _cursor() as cursor:
        cursor.execute(_CHECKED_WRITE, params, prepare=True)
        inserted: int = cursor.rowcount
        return inserted == len(legs)


def _marks(count: int) -> str:
    return ", ".join(["%s"] * count)


def _insert_rows(legs: list[_Leg], now: datetime) -> tuple[str, list[Any]]:
    """SQLite: ``VALUES`` rows of the transfers, ordered by id."""
    params: list[Any] = []
    created_at = connection.ops.adapt_datetimefield_value(now)
    for leg in sorted(legs, key=lambda x: x.id):
        params += [
            _db_uuid(leg.id),
            leg.debit,
            leg.credit,
            leg.amount,
            leg.currency,
            leg.code,
            leg.status,
            _db_uuid(leg.pending_id),
            leg.reference,
            connection.ops.adapt_json_value(leg.metadata, None),
            created_at,
        ]
    row = "(" + ", ".join(["%s"] * len(_COLUMNS.split(","))) + ")"
    return ", ".join([row] * len(legs)), params


def _db_uuid(value: uuid.UUID | None) -> Any:
    return Transfer._meta.pk.get_db_prep_value(value, connection)


def _write(deltas: dict[int, list[int]], legs: list[_Leg], now: datetime) -> bool:
    """Applies the deltas and inserts the transfers; False when nothing was written: an
    account refused (PostgreSQL judges every rule on the locked rows) or, on SQLite,
    the guard found one of our ids already stored (PostgreSQL raises ``IntegrityError``
    from the unique index instead).

    PostgreSQL: the one checked statement (``_checked_write``). SQLite (one writer at a
    time, ``BEGIN IMMEDIATE``; the accounts were judged by the caller): the balance
    UPDATE, guarded, then the INSERT.
    """
    if on_postgres():
        currencies = _expected_currencies(legs)
        if None in currencies.values():
            return False
        return _checked_write(deltas, legs, currencies, now)
    return _write_sqlite(deltas, legs, now)


def _write_sqlite(deltas: dict[int, list[int]], legs: list[_Leg], now: datetime) -> bool:
    changed = sorted(deltas)
    params: list[Any] = []
    for column in (0, 1):
        for account_id in changed:
            params += [account_id, deltas[account_id][column]]
    params += changed
    ids = [_db_uuid(leg.id) for leg in legs]
    pending_ids = [_db_uuid(leg.pending_id) for leg in legs if leg.pending_id is not None]
    params += ids + pending_ids
    guard = f"id IN ({_marks(len(ids))})"
    guard += f" OR pending_id IN ({_marks(len(pending_ids))})" if pending_ids else ""
    case = " ".join(["WHEN %s THEN %s"] * len(changed))
    rows, row_params = _insert_rows(legs, now)
    with connection.wrap_database_errors, connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE ledger_account SET balance = balance + CASE id {case} END, "  # noqa: S608
            f"held = held + CASE id {case} END, version = version + 1 "
            f"WHERE id IN ({_marks(len(changed))}) "
            f"AND NOT EXISTS (SELECT 1 FROM ledger_transfer WHERE {guard})",
            params,
        )
        if cursor.rowcount != len(changed):
            return False
        cursor.execute(f"INSERT INTO ledger_transfer ({_COLUMNS}) VALUES {rows}", row_params)  # noqa: S608
        return True


# --- replays --------------------------------------------------------------------------


def _record(t: Transfer) -> TransferRecord:
    return TransferRecord(
        id=t.id,
        debit_account_id=t.debit_account_id,
        credit_account_id=t.credit_account_id,
        amount=t.amount,
        currency=t.currency,
        code=t.code,
        status=t.status,
        pending_id=t.pending_id,
        reference=t.reference,
        metadata=t.metadata,
        created_at=t.created_at,
    )


def _replay_or_raise(legs: list[_Leg], otherwise: LedgerError | IntegrityError) -> Posting:
    """Existing transfers with our ids: the originals if identical, else a conflict.

    With none of our ids stored, the posting failed for another reason: a resolution of
    an already resolved hold, or ``otherwise``.
    """
    existing = {t.id: t for t in Transfer.objects.filter(id__in=[leg.id for leg in legs])}
    if existing:
        for leg in legs:
            stored = existing.get(leg.id)
            if stored is None or _content(stored) != leg.content():
                raise TransferConflict(
                    f"transfer id {leg.id} was already used for a different transfer.",
                    transfer_id=str(leg.id),
                )
        return Posting(transfers=tuple(_record(existing[leg.id]) for leg in legs), replayed=True)
    pending_ids = [leg.pending_id for leg in legs if leg.pending_id is not None]
    resolved = (
        Transfer.objects.filter(pending_id__in=pending_ids).values_list("pending_id", flat=True)
        if pending_ids
        else None
    )
    pending_id = resolved.first() if resolved is not None else None
    if pending_id is not None:
        raise HoldAlreadyResolved(
            f"pending transfer {pending_id} was already posted or voided.",
            pending_id=str(pending_id),
        )
    raise otherwise


def _content(t: Transfer) -> tuple[Any, ...]:
    return (
        t.debit_account_id,
        t.credit_account_id,
        t.amount,
        t.currency,
        t.code,
        t.status,
        t.pending_id,
        t.reference,
        t.metadata,
    )


# --- the core and its two transaction wrappers ---------------------------------------


def _posted(legs: list[_Leg], now: datetime) -> Posting:
    return Posting(
        transfers=tuple(
            TransferRecord(
                id=leg.id,
                debit_account_id=leg.debit,
                credit_account_id=leg.credit,
                amount=leg.amount,
                currency=leg.currency,
                code=leg.code,
                status=leg.status,
                pending_id=leg.pending_id,
                reference=leg.reference,
                metadata=leg.metadata,
                created_at=now,
            )
            for leg in legs
        ),
        replayed=False,
    )


def _post_at_once(legs: list[_Leg]) -> Posting | None:
    """PostgreSQL's fast path: the one checked statement, nothing before it. None when it
    wrote nothing (a refusal, a replay or a resolved hold: ``_post_careful`` decides)."""
    if not on_postgres():
        return None
    now = timezone.now()
    return _posted(legs, now) if _write(_effects(legs), legs, now) else None


def _post_careful(legs: list[_Leg]) -> Posting:
    """Lock and judge (typed refusals), write; or recognise a replay."""
    deltas = _effects(legs)
    try:
        _judge(legs, deltas)
    except LedgerError as refusal:
        # A replay of a transfer that has since been spent, or whose account was closed,
        # still returns the original: idempotency is decided before anything else.
        return _replay_or_raise(legs, refusal)
    now = timezone.now()
    if not _write(deltas, legs, now):
        return _replay_or_raise(
            legs, HoldAlreadyResolved("a pending transfer of this posting was resolved.")
        )
    return _posted(legs, now)


def _apply(legs: list[_Leg]) -> Posting:
    """The posting inside the current transaction: at once, else carefully."""
    return _post_at_once(legs) or _post_careful(legs)


def post_legs(requests: Sequence[LegRequest]) -> Posting:
    """Applies a posting inside the current transaction (see the module docstring)."""
    if not connection.in_atomic_block:
        raise TransactionRequired("post_legs runs inside transaction.atomic().")
    return _apply(_normalise(requests))


def post_durable(requests: Sequence[LegRequest]) -> Posting:
    """``post_legs`` in its own outermost transaction (refuses to be nested).

    In autocommit mode on PostgreSQL the one checked statement IS that transaction: a
    posting costs one round trip. Only when an account refused it does the careful path
    run, in ``atomic(durable=True)``, to word the refusal.
    """
    legs = _normalise(requests)
    try:
        if connection.get_autocommit():
            posting = _post_at_once(legs)
            if posting is not None:
                return posting
            with transaction.atomic(durable=True):
                return _post_careful(legs)
        with transaction.atomic(durable=True):
            return _apply(legs)
    except IntegrityError as exc:
        # One of our ids is stored (a replay), or a posting racing on a new id or hold
        # won: the stored transfers decide.
        return _replay_or_raise(legs, exc)


def post_in_caller_transaction(requests: Sequence[LegRequest]) -> Posting:
    """``post_legs`` inside the caller's transaction, behind a savepoint.

    The caller (e.g. the table service) owns the transaction: our writes commit or roll
    back with its own. On any refusal nothing of ours remains and the caller's
    transaction is still usable.
    """
    if not connection.in_atomic_block:
        raise TransactionRequired(
            "this ledger service runs inside the caller's transaction.atomic()."
        )
    legs = _normalise(requests)
    try:
        with transaction.atomic():
            return _apply(legs)
    except IntegrityError as exc:
        return _replay_or_raise(legs, exc)
