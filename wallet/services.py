"""Player money: accounts, sign-up grant, deposits, withdrawals, table money, adjustments.

Every movement is a ledger transfer posted through the ledger's one posting core. Ids
of what we create are derived (uuid5) from the caller's idempotency key, so a retried or
duplicated request finds the original instead of moving money twice.

Transaction contract
--------------------
* ``deposit_create``, ``deposit_webhook_handle``, ``withdrawal_request``,
  ``withdrawal_approve``, ``withdrawal_reject``, ``withdrawal_cancel``,
  ``adjustment_create``: each runs in its
  own durable transaction (``transaction.atomic(durable=True)``): they cannot be
  silently nested in someone else's transaction.
* ``seat_buy_in``, ``seat_cash_out``, ``hand_settle`` (for the table layer) and
  ``signup_grant`` (a registration hook) run INSIDE THE CALLER'S transaction: they raise
  ``TransactionRequired`` outside ``transaction.atomic()``. The caller locks the table,
  appends its events and settles money in one commit; our writes commit or roll back
  with it, and a refusal (e.g. ``InsufficientFunds``) leaves nothing of ours behind
  (savepoint) so the caller may handle it and go on.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from core import ids
from core.errors import InvalidRequest, NotFound
from core.idempotency import same_request
from core.ids import derived_uuid
from ledger.errors import InvalidAmount
from ledger.models import Account, AccountKind
from ledger.posting import (
    PendingResolution,
    Posting,
    TransactionRequired,
    TransferRecord,
    TransferRequest,
    check_amount,
)
from ledger.services import ledger_account_open, ledger_post_transfers_in_transaction
from staff.log import staff_log_record
from staff.roles import staff_require
from wallet.amounts import PLAY_MONEY
from wallet.errors import (
    CurrencyNotAllowed,
    DepositAboveMaximum,
    DepositDailyLimit,
    DepositLimitReached,
    DepositMismatch,
    SecondApproverRequired,
    UnknownCurrency,
    WithdrawalBelowMinimum,
    WithdrawalDailyLimit,
    WithdrawalNotPending,
)
from wallet.gateways import gateway_get
from wallet.kyc import kyc_withdrawal_check
from wallet.models import (
    Adjustment,
    Correction,
    Deposit,
    DepositLimit,
    WebhookEvent,
    Withdrawal,
)
from wallet.restrictions import restriction_check
from wallet.tables import HOUSE, SettlementLeg


def derived_id(*parts: object) -> uuid.UUID:
    """A deterministic UUID for the given parts (stable transfer ids for retries)."""
    return derived_uuid(ids.WALLET, *parts, sep="\n")


# --- validation ------------------------------------------------------------------


def currency_validate(value: object) -> str:
    """One of ``settings.WALLET_CURRENCIES``, else 400 ``unknown_currency``."""
    if not isinstance(value, str) or value not in settings.WALLET_CURRENCIES:
        raise UnknownCurrency(
            f"currency must be one of {', '.join(settings.WALLET_CURRENCIES)}, got {value!r}.",
            allowed=list(settings.WALLET_CURRENCIES),
        )
    return value


def _real_money(currency: str, action: str) -> None:
    if currency == PLAY_MONEY:
        raise CurrencyNotAllowed(
            f"{PLAY_MONEY} is play money: it cannot be {action}.", currency=currency
        )


# --- accounts ----------------------------------------------------------------------


def player_account(*, user_id: int, currency: str) -> Account:
    """The player's cash account in ``currency`` (created on demand; never overdraws)."""
    return ledger_account_open(
        kind=AccountKind.PLAYER_CASH, owner_ref=f"user:{user_id}", currency=currency
    )


def clearing_account(*, gateway: str, currency: str) -> Account:
    """Money in transit with a gateway; negative = the gateway owes us."""
    return ledger_account_open(
        kind=AccountKind.PAYMENT_CLEARING,
        owner_ref=f"gateway:{gateway}",
        currency=currency,
        must_not_overdraw=False,
    )


def house_account(*, kind: AccountKind, currency: str) -> Account:
    """The house's rake / play-money issuer / adjustments account (issuers may go negative)."""
    return ledger_account_open(
        kind=kind,
        owner_ref=HOUSE,
        currency=currency,
        must_not_overdraw=kind == AccountKind.HOUSE_RAKE,
    )


def seat_account(*, seat_ref: str, currency: str) -> Account:
    """The stake account of a seat (``seat_ref`` is chosen by the table layer)."""
    return ledger_account_open(kind=AccountKind.SEAT_STAKE, owner_ref=seat_ref, currency=currency)


# --- registration -----------------------------------------------------------------


def signup_grant(user: AbstractBaseUser) -> None:
    """Grants ``WALLET_SIGNUP_CHIPS`` play money (registration hook; caller's transaction).

    Idempotent per user: the transfer id is derived from the user id.
    """
    amount = int(settings.WALLET_SIGNUP_CHIPS)
    if amount <= 0:
        return
    issuer = house_account(kind=AccountKind.BONUS, currency=PLAY_MONEY)
    player = player_account(user_id=user.pk, currency=PLAY_MONEY)
    ledger_post_transfers_in_transaction(
        transfers=[
            TransferRequest(
                id=derived_id("signup-chips", user.pk),
                debit_account_id=issuer.pk,
                credit_account_id=player.pk,
                amount=amount,
                currency=PLAY_MONEY,
                code="signup_grant",
                reference=f"user:{user.pk}",
            )
        ]
    )


# --- deposits ------------------------------------------------------------------------


def _same_request(existing: Any, **expected: Any) -> Any:
    same = all(getattr(existing, name) == value for name, value in expected.items())
    same_request(same, id=str(existing.pk))
    return existing


def _deposit_confirm(deposit: Deposit) -> None:
    clearing = clearing_account(gateway=deposit.gateway, currency=deposit.currency)
    player = player_account(user_id=deposit.user_id, currency=deposit.currency)
    transfer_id = derived_id("deposit", deposit.pk)
    ledger_post_transfers_in_transaction(
        transfers=[
            TransferRequest(
                id=transfer_id,
                debit_account_id=clearing.pk,
                credit_account_id=player.pk,
                amount=deposit.amount,
                currency=deposit.currency,
                code="deposit",
                reference=f"deposit:{deposit.pk}",
            )
        ]
    )
    deposit.status = Deposit.Status.CONFIRMED
    deposit.transfer_id = transfer_id
    deposit.save(update_fields=["status", "transfer_id", "updated_at"])


def _locked_totals(
    model: type[Deposit] | type[Withdrawal],
    *,
    player: Account,
    user_id: int,
    currency: str,
    statuses: list[str],
    windows: Mapping[str, timedelta],
) -> dict[str, int]:
    """The player's ``model`` amounts in ``currency`` and ``statuses`` over each rolling
    window (name -> length, ending now), after locking the player's cash account row: one
    deposit (or withdrawal) at a time per player and currency, so the sums a limit is
    checked against are exact. One query whatever the number of windows."""
    Account.objects.select_for_update().filter(pk=player.pk).values_list("pk").get()
    now = timezone.now()
    rows = model.objects.filter(  # type: ignore[attr-defined]  # the model is passed as a class; its manager and choices are not in the type
        user_id=user_id,
        currency=currency,
        status__in=statuses,
        created_at__gte=now - max(windows.values()),
    )
    sums = rows.aggregate(
        **{name: Sum("amount", filter=Q(created_at__gte=now - w)) for name, w in windows.items()}
    )
    return {name: int(total or 0) for name, total in sums.items()}


def _deposit_maximum(*, amount: int, currency: str) -> None:
    """Refuses a deposit above ``WALLET_DEPOSIT_MAX`` (before anything is written)."""
    maximum = int(settings.WALLET_DEPOSIT_MAX)
    if amount > maximum:
        raise DepositAboveMaximum(
            f"A deposit is at most {maximum} {currency} minor units.",
            currency=currency,
            maximum=maximum,
        )


def _deposit_limits(*, user_id: int, player: Account, amount: int, currency: str) -> None:
    """Refuses a deposit that takes the player's deposits (pending or confirmed) over a
    rolling window above a limit: ``WALLET_DEPOSIT_DAILY_MAX`` over 24 hours (with
    ``_deposit_maximum`` this keeps what one player moves through the shared clearing
    account far from its range, docs/ledger.md), then the player's own limits in force
    now (``DepositLimit``), each over its period. Caller's transaction."""
    used = _locked_totals(
        Deposit,
        player=player,
        user_id=user_id,
        currency=currency,
        statuses=[Deposit.Status.PENDING, Deposit.Status.CONFIRMED],
        windows=DepositLimit.WINDOWS,
    )
    daily_max = int(settings.WALLET_DEPOSIT_DAILY_MAX)
    if used[DepositLimit.Period.DAY] + amount > daily_max:
        raise DepositDailyLimit(
            f"Deposits are limited to {daily_max} {currency} minor units per 24 hours; "
            f"{used[DepositLimit.Period.DAY]} already deposited.",
            currency=currency,
            daily_max=daily_max,
            deposited_today=used[DepositLimit.Period.DAY],
        )
    now = timezone.now()  # read under the lock: a limit set meanwhile counts
    limits = {
        row.period: limit
        for row in DepositLimit.objects.filter(user_id=user_id, currency=currency)
        if (limit := row.in_force(now)) is not None
    }
    for period in DepositLimit.Period:  # the shortest window first: its refusal is the nearest
        if period in limits and used[period] + amount > limits[period]:
            limit, spent = limits[period], used[period]
            remaining = max(0, limit - spent)
            raise DepositLimitReached(
                f"Your deposit limit is {limit} {currency} minor units per "
                f"{period.label}; {spent} deposited in that time, {remaining} left.",
                currency=currency,
                period=period.value,
                limit=limit,
                used=spent,
                remaining=remaining,
            )


def deposit_create(
    *,
    user: AbstractBaseUser,
    deposit_id: uuid.UUID,
    amount: object,
    currency: object,
    gateway: str | None = None,
) -> Deposit:
    """Starts a deposit; the sandbox confirms (credits the player) at once, a webhook
    gateway later. Idempotent by ``deposit_id``."""
    amount = check_amount(amount)
    currency = currency_validate(currency)
    _real_money(currency, "deposited")
    gateway_name = gateway or settings.WALLET_DEFAULT_GATEWAY
    provider = gateway_get(gateway_name)
    expected = {"user_id": user.pk, "amount": amount, "currency": currency, "gateway": gateway_name}
    existing = Deposit.objects.filter(pk=deposit_id).first()
    if existing is not None:  # a retry is answered as before, whatever the limits now
        return _same_request(existing, **expected)  # type: ignore[no-any-return]  # returns the row it was given (typed Any)
    restriction_check(user_id=user.pk, action="deposit")
    _deposit_maximum(amount=amount, currency=currency)
    player = player_account(user_id=user.pk, currency=currency)
    try:
        with transaction.atomic(durable=True):
            existing = Deposit.objects.filter(pk=deposit_id).first()
            if existing is not None:
                return _same_request(existing, **expected)  # type: ignore[no-any-return]  # returns the row it was given (typed Any)
            _deposit_limits(user_id=user.pk, player=player, amount=amount, currency=currency)
            deposit = Deposit.objects.create(id=deposit_id, **expected)
            if provider.confirms_immediately:
                _deposit_confirm(deposit)
            return deposit
    except IntegrityError:  # the same request raced us and won: answer like it did
        return _same_request(Deposit.objects.get(pk=deposit_id), **expected)  # type: ignore[no-any-return]  # returns the row it was given (typed Any)


def deposit_webhook_handle(*, gateway: str, body: bytes, headers: Any) -> str:
    """Verifies and applies a gateway event once: ``processed``, ``duplicate`` or ``ignored``."""
    provider = gateway_get(gateway)
    event = provider.verify_webhook(body=body, headers=headers)
    if WebhookEvent.objects.filter(gateway=gateway, event_id=event.event_id).exists():
        return "duplicate"
    try:
        with transaction.atomic(durable=True):
            WebhookEvent.objects.create(
                gateway=gateway,
                event_id=event.event_id,
                event_type=event.event_type,
                payload=event.payload,
            )
            deposit = (
                Deposit.objects.select_for_update()
                .filter(pk=event.deposit_id, gateway=gateway)
                .first()
            )
            if deposit is None:
                raise NotFound(
                    f"No deposit {event.deposit_id} through {gateway}.", code="deposit_not_found"
                )
            if (deposit.amount, deposit.currency) != (event.amount, event.currency):
                raise DepositMismatch(
                    f"The event is for {event.amount} {event.currency}, the deposit is "
                    f"{deposit.amount} {deposit.currency}.",
                    deposit_id=str(deposit.pk),
                )
            if deposit.status != Deposit.Status.PENDING:
                return "ignored"
            if event.event_type == "deposit.succeeded":
                _deposit_confirm(deposit)
                return "processed"
            if event.event_type == "deposit.failed":
                deposit.status = Deposit.Status.FAILED
                deposit.save(update_fields=["status", "updated_at"])
                return "processed"
            return "ignored"
    except IntegrityError:  # the same event raced us: it was (or is being) applied once
        return "duplicate"


# --- withdrawals ---------------------------------------------------------------------


def withdrawal_request(
    *,
    user: AbstractBaseUser,
    withdrawal_id: uuid.UUID,
    amount: object,
    currency: object,
    gateway: str | None = None,
) -> Withdrawal:
    """Holds the amount on the player's cash account (a pending transfer) for staff to
    approve or reject. Limits: ``WALLET_WITHDRAWAL_MIN``, ``WALLET_WITHDRAWAL_DAILY_MAX``
    (pending + approved in the last 24 h); above ``WALLET_KYC_WITHDRAWAL_THRESHOLD`` a
    verified identity (``kyc_required``). Idempotent by ``withdrawal_id``."""
    amount = check_amount(amount)
    currency = currency_validate(currency)
    _real_money(currency, "withdrawn")
    gateway_name = gateway or settings.WALLET_DEFAULT_GATEWAY
    gateway_get(gateway_name)
    expected = {"user_id": user.pk, "amount": amount, "currency": currency, "gateway": gateway_name}
    existing = Withdrawal.objects.filter(pk=withdrawal_id).first()
    if existing is not None:
        return _same_request(existing, **expected)  # type: ignore[no-any-return]  # returns the row it was given (typed Any)
    restriction_check(user_id=user.pk, action="withdraw")
    minimum = int(settings.WALLET_WITHDRAWAL_MIN)
    if amount < minimum:
        raise WithdrawalBelowMinimum(
            f"The minimum withdrawal is {minimum} minor units.",
            minimum=minimum,
            currency=currency,
        )
    kyc_withdrawal_check(user_id=user.pk, amount=amount, currency=currency)
    player = player_account(user_id=user.pk, currency=currency)
    payout = clearing_account(gateway=gateway_name, currency=currency)
    try:
        with transaction.atomic(durable=True):
            today = _locked_totals(
                Withdrawal,
                player=player,
                user_id=user.pk,
                currency=currency,
                statuses=[*Withdrawal.OPEN, Withdrawal.Status.APPROVED],
                windows={"day": timedelta(days=1)},
            )["day"]
            daily_max = int(settings.WALLET_WITHDRAWAL_DAILY_MAX)
            if today + amount > daily_max:
                raise WithdrawalDailyLimit(
                    f"Withdrawals are limited to {daily_max} per 24 hours; "
                    f"{today} already requested.",
                    daily_max=daily_max,
                    requested_today=today,
                    currency=currency,
                )
            hold_id = derived_id("withdrawal-hold", withdrawal_id)
            ledger_post_transfers_in_transaction(
                transfers=[
                    TransferRequest(
                        id=hold_id,
                        debit_account_id=player.pk,
                        credit_account_id=payout.pk,
                        amount=amount,
                        currency=currency,
                        code="withdrawal",
                        pending=True,
                        reference=f"withdrawal:{withdrawal_id}",
                    )
                ]
            )
            withdrawal = Withdrawal.objects.create(
                id=withdrawal_id, hold_transfer_id=hold_id, **expected
            )
            if (
                settings.WALLET_SANDBOX_AUTO_APPROVE_WITHDRAWALS
                and gateway_get(gateway_name).confirms_immediately
            ):
                _withdrawal_resolve(
                    withdrawal, status=Withdrawal.Status.APPROVED, staff_user=None, reason="auto"
                )
            return withdrawal
    except IntegrityError:  # the same request raced us and won
        return _same_request(Withdrawal.objects.get(pk=withdrawal_id), **expected)  # type: ignore[no-any-return]  # returns the row it was given (typed Any)


#: How a withdrawal ends: the resolution of its hold (post or void) and its ledger code.
_ENDINGS = {
    Withdrawal.Status.APPROVED: ("approve", False, "withdrawal"),
    Withdrawal.Status.REJECTED: ("reject", True, "withdrawal_rejected"),
    Withdrawal.Status.CANCELLED: ("cancel", True, "withdrawal_cancelled"),
}


#: A staff decision's reason is kept whole in its column (``reason_too_long`` beyond).
WITHDRAWAL_REASON_LENGTH = Withdrawal._meta.get_field("reason").max_length


def _withdrawal_resolve(
    withdrawal: Withdrawal,
    *,
    status: Withdrawal.Status,
    staff_user: AbstractBaseUser | None,
    reason: str,
) -> None:
    """Ends ``withdrawal`` as ``status``: its hold is posted (paid out) or voided (the
    funds are the player's again) by one ledger transfer. Caller's transaction."""
    name, void, code = _ENDINGS[status]
    resolution_id = derived_id("withdrawal", name, withdrawal.pk)
    ledger_post_transfers_in_transaction(
        transfers=[
            PendingResolution(
                id=resolution_id,
                pending_id=withdrawal.hold_transfer_id,
                void=void,
                code=code,
                reference=f"withdrawal:{withdrawal.pk}",
                metadata={"by": staff_user.pk if staff_user else None, "reason": reason},
            )
        ]
    )
    withdrawal.status = status
    withdrawal.resolution_transfer_id = resolution_id
    withdrawal.decided_by = staff_user  # type: ignore[assignment]  # the key is typed as the concrete user model; services take any signed-in user
    withdrawal.decided_at = timezone.now()
    withdrawal.reason = reason
    withdrawal.save()


def withdrawal_needs_two_approvals(*, amount: int, currency: str) -> bool:
    """Whether a withdrawal of ``amount`` takes two staff approvals (four eyes): above its
    currency's ``WALLET_WITHDRAWAL_FOUR_EYES_ABOVE``, or always for a currency not listed."""
    threshold = settings.WALLET_WITHDRAWAL_FOUR_EYES_ABOVE.get(currency)
    return threshold is None or amount > threshold


def _withdrawal_locked(
    withdrawal_id: uuid.UUID, *, retried: Withdrawal.Status, user_id: int | None = None
) -> Withdrawal:
    """The withdrawal, row-locked (``user_id``: only that player's), still held or already
    ``retried`` (what the caller's decision makes it: a retry finds it so), else 409
    ``withdrawal_not_pending``. Caller's transaction."""
    rows = Withdrawal.objects.select_for_update().filter(pk=withdrawal_id)
    withdrawal = (rows if user_id is None else rows.filter(user_id=user_id)).first()
    if withdrawal is None:
        raise NotFound(f"No withdrawal {withdrawal_id}.", code="withdrawal_not_found")
    if withdrawal.status != retried and withdrawal.status not in Withdrawal.OPEN:
        raise WithdrawalNotPending(
            f"Withdrawal {withdrawal.pk} is already {withdrawal.status}.", status=withdrawal.status
        )
    return withdrawal


def _withdrawal_log(
    withdrawal: Withdrawal, *, staff_user: AbstractBaseUser, action: str, reason: str
) -> None:
    staff_log_record(
        actor=staff_user,
        action=action,
        target=f"withdrawal:{withdrawal.pk}",
        subject_id=withdrawal.user_id,
        reason=reason,
        data={
            "amount": withdrawal.amount,
            "currency": withdrawal.currency,
            "first_approved_by": withdrawal.first_approved_by_id,
        },
    )


def withdrawal_approve(
    *, withdrawal_id: uuid.UUID, staff_user: AbstractBaseUser, reason: str
) -> Withdrawal:
    """Approves a withdrawal, with a reason (finance staff). At or below its currency's
    four-eyes threshold this pays it out (posts its hold); above it, the first approval is
    recorded (``awaiting_second``, no money moves) and a different staff member's second
    approval pays it out. Each approval is one staff-log line (``withdrawal.approve_first``
    or ``withdrawal.approve``). Approving a paid-out withdrawal again is a no-op.

    Refusals leave everything as it was: ``permission_denied`` (403), ``reason_required`` or
    ``reason_too_long`` (400), ``withdrawal_not_found`` (404), ``withdrawal_not_pending`` (409: rejected or
    cancelled) and ``second_approver_required`` (409: the first approver again)."""
    reason = _staff_reason(
        staff_user,
        reason,
        what="Approving a withdrawal",
        permission="wallet.approve_withdrawal",
        max_length=WITHDRAWAL_REASON_LENGTH,
    )
    with transaction.atomic(durable=True):
        withdrawal = _withdrawal_locked(withdrawal_id, retried=Withdrawal.Status.APPROVED)
        if withdrawal.status == Withdrawal.Status.APPROVED:
            return withdrawal  # a retried decision
        if withdrawal.status == Withdrawal.Status.AWAITING_SECOND:
            if withdrawal.first_approved_by_id == staff_user.pk:
                raise SecondApproverRequired(
                    f"You gave withdrawal {withdrawal.pk} its first approval: a different "
                    "staff member gives the second.",
                    first_approved_by=staff_user.pk,
                )
        elif withdrawal_needs_two_approvals(amount=withdrawal.amount, currency=withdrawal.currency):
            withdrawal.status = Withdrawal.Status.AWAITING_SECOND
            withdrawal.first_approved_by = staff_user  # type: ignore[assignment]  # the key is typed as the concrete user model; services take any signed-in user
            withdrawal.first_approved_at = timezone.now()
            withdrawal.first_approval_reason = reason
            withdrawal.save()
            _withdrawal_log(
                withdrawal, staff_user=staff_user, action="withdrawal.approve_first", reason=reason
            )
            return withdrawal
        _withdrawal_resolve(
            withdrawal, status=Withdrawal.Status.APPROVED, staff_user=staff_user, reason=reason
        )
        _withdrawal_log(
            withdrawal, staff_user=staff_user, action="withdrawal.approve", reason=reason
        )
        return withdrawal


def withdrawal_reject(
    *, withdrawal_id: uuid.UUID, staff_user: AbstractBaseUser, reason: str
) -> Withdrawal:
    """Rejects a withdrawal not yet paid out, with a reason (finance staff; one approval
    already given or not): its hold is voided, the funds are available again. One
    staff-log line (``withdrawal.reject``); rejecting it again is a no-op."""
    reason = _staff_reason(
        staff_user,
        reason,
        what="Rejecting a withdrawal",
        permission="wallet.approve_withdrawal",
        max_length=WITHDRAWAL_REASON_LENGTH,
    )
    with transaction.atomic(durable=True):
        withdrawal = _withdrawal_locked(withdrawal_id, retried=Withdrawal.Status.REJECTED)
        if withdrawal.status == Withdrawal.Status.REJECTED:
            return withdrawal  # a retried decision
        _withdrawal_resolve(
            withdrawal, status=Withdrawal.Status.REJECTED, staff_user=staff_user, reason=reason
        )
        _withdrawal_log(
            withdrawal, staff_user=staff_user, action="withdrawal.reject", reason=reason
        )
        return withdrawal


def withdrawal_cancel(*, user: AbstractBaseUser, withdrawal_id: uuid.UUID) -> Withdrawal:
    """The player cancels their own withdrawal while staff have not paid it out: its hold
    is voided (one ledger transfer), the funds are available again. Cancelling it again
    is a no-op; someone else's is ``withdrawal_not_found`` (404), a decided one
    ``withdrawal_not_pending`` (409)."""
    with transaction.atomic(durable=True):
        withdrawal = _withdrawal_locked(
            withdrawal_id, retried=Withdrawal.Status.CANCELLED, user_id=user.pk
        )
        if withdrawal.status == Withdrawal.Status.CANCELLED:
            return withdrawal  # a retry
        _withdrawal_resolve(
            withdrawal,
            status=Withdrawal.Status.CANCELLED,
            staff_user=None,
            reason="cancelled by the player",
        )
        return withdrawal


# --- tables (called by the table layer inside ITS transaction) -------------------------


def _require_caller_transaction() -> None:
    from django.db import connection

    if not connection.in_atomic_block:
        raise TransactionRequired(
            "table money moves run inside the table service's transaction.atomic()."
        )


def _seat_transfer(
    *,
    to_seat: bool,
    code: str,
    user_id: int,
    seat_ref: str,
    amount: int,
    currency: str,
    transfer_id: uuid.UUID,
) -> TransferRecord:
    """One transfer between a player's cash and a seat's stake, in the caller's transaction.

    Player cash -> seat stake when ``to_seat``, seat stake -> player cash otherwise; posted
    under ``code``, referencing the seat, idempotent by ``transfer_id``.
    """
    _require_caller_transaction()
    if to_seat:
        restriction_check(user_id=user_id, action="play")
    player = player_account(user_id=user_id, currency=currency)
    seat = seat_account(seat_ref=seat_ref, currency=currency)
    debit, credit = (player, seat) if to_seat else (seat, player)
    return ledger_post_transfers_in_transaction(
        transfers=[
            TransferRequest(
                id=transfer_id,
                debit_account_id=debit.pk,
                credit_account_id=credit.pk,
                amount=amount,
                currency=currency,
                code=code,
                reference=seat_ref,
                metadata={"user_id": user_id},
            )
        ]
    ).transfers[0]


def seat_buy_in(
    *, user_id: int, seat_ref: str, amount: int, currency: str, transfer_id: uuid.UUID
) -> TransferRecord:
    """Player cash -> seat stake. Caller's transaction; idempotent by ``transfer_id``."""
    return _seat_transfer(
        to_seat=True,
        code="buy_in",
        user_id=user_id,
        seat_ref=seat_ref,
        amount=amount,
        currency=currency,
        transfer_id=transfer_id,
    )


def seat_cash_out(
    *, user_id: int, seat_ref: str, amount: int, currency: str, transfer_id: uuid.UUID
) -> TransferRecord:
    """Seat stake -> player cash. Caller's transaction; idempotent by ``transfer_id``."""
    return _seat_transfer(
        to_seat=False,
        code="cash_out",
        user_id=user_id,
        seat_ref=seat_ref,
        amount=amount,
        currency=currency,
        transfer_id=transfer_id,
    )


def hand_settle(*, hand_ref: str, currency: str, legs: Sequence[SettlementLeg[str]]) -> Posting:
    """Settles a hand: all legs (seat -> seat, seat -> ``HOUSE`` the rake; named by seat
    ref) linked, all or none; the pots' legs are posted first, then the rake's.

    Caller's transaction. Transfer ids are derived from ``hand_ref`` and the leg's
    position, so settling the same hand again with the same legs returns the original
    posting (``replayed=True``) and with other legs raises ``TransferConflict``.
    """
    _require_caller_transaction()
    if not legs:
        raise InvalidRequest("A settlement has at least one leg.", code="empty_settlement")
    payments = [leg for leg in legs if leg.receiver != HOUSE]
    rake = [leg for leg in legs if leg.receiver == HOUSE]
    seats = {leg.payer for leg in legs} | {leg.receiver for leg in payments}
    # One query for the seats' accounts (they exist once a player sat down) and the
    # house's; one missing is opened as ``seat_account`` / ``house_account`` would.
    found = Account.objects.filter(
        Q(kind=AccountKind.SEAT_STAKE, owner_ref__in=seats)
        | Q(kind=AccountKind.HOUSE_RAKE, owner_ref=HOUSE),
        currency=currency,
    ).values_list("kind", "owner_ref", "pk")
    ids = {(kind, ref): pk for kind, ref, pk in found}
    house = ids.get((AccountKind.HOUSE_RAKE, HOUSE)) or (
        house_account(kind=AccountKind.HOUSE_RAKE, currency=currency).pk
    )
    seat_ids = {
        ref: ids.get((AccountKind.SEAT_STAKE, ref))
        or seat_account(seat_ref=ref, currency=currency).pk
        for ref in sorted(seats)
    }
    transfers: list[TransferRequest] = []
    for index, payment in enumerate(payments):
        transfers.append(
            TransferRequest(
                id=derived_id("hand", hand_ref, "pay", index),
                debit_account_id=seat_ids[payment.payer],
                credit_account_id=seat_ids[payment.receiver],
                amount=payment.amount,
                currency=currency,
                code="pot",
                reference=hand_ref,
            )
        )
    for index, charge in enumerate(rake):
        transfers.append(
            TransferRequest(
                id=derived_id("hand", hand_ref, "rake", index),
                debit_account_id=seat_ids[charge.payer],
                credit_account_id=house,
                amount=charge.amount,
                currency=currency,
                code="rake",
                reference=hand_ref,
            )
        )
    return ledger_post_transfers_in_transaction(transfers=transfers)


# --- staff adjustments -------------------------------------------------------------


def _staff_reason(
    staff_user: AbstractBaseUser,
    reason: str,
    *,
    what: str,
    permission: str,
    max_length: int | None = None,
) -> str:
    """The stripped reason of a staff decision; refuses staff without ``permission``, no
    reason, and one longer than ``max_length`` (its column's size: kept whole or refused,
    never cut)."""
    staff_require(staff_user, permission)
    reason = (reason or "").strip()
    if not reason:
        raise InvalidRequest(f"{what} needs a reason.", code="reason_required")
    if max_length is not None and len(reason) > max_length:
        raise InvalidRequest(
            f"A reason is at most {max_length} characters ({len(reason)} given).",
            code="reason_too_long",
            max=max_length,
        )
    return reason


def _player_id(account: Account) -> int | None:
    """The player an account belongs to (``user:<id>`` owners), for the staff log."""
    kind, _, ident = account.owner_ref.partition(":")
    return int(ident) if kind == "user" and ident.isdigit() else None


def adjustment_create(
    *,
    staff_user: AbstractBaseUser,
    account_id: int,
    amount: object,
    reason: str,
    adjustment_id: uuid.UUID | None = None,
) -> Adjustment:
    """A correcting transfer between ``account_id`` and the house adjustments account:
    ``amount > 0`` credits the account, ``< 0`` debits it. Reason mandatory; the staff
    member is recorded on the adjustment and in the transfer's metadata."""
    reason = _staff_reason(
        staff_user, reason, what="An adjustment", permission="wallet.add_adjustment"
    )
    if type(amount) is not int or amount == 0:
        raise InvalidAmount(
            f"amount must be a non-zero integer, got {amount!r}.", value=repr(amount)
        )
    check_amount(abs(amount))
    account = Account.objects.filter(pk=account_id).first()
    if account is None:
        raise NotFound(f"No account {account_id}.", code="account_not_found")
    house = house_account(kind=AccountKind.ADJUSTMENT, currency=account.currency)
    adjustment_id = adjustment_id or uuid.uuid4()
    transfer_id = derived_id("adjustment", adjustment_id)
    debit, credit = (house, account) if amount > 0 else (account, house)
    with transaction.atomic(durable=True):
        ledger_post_transfers_in_transaction(
            transfers=[
                TransferRequest(
                    id=transfer_id,
                    debit_account_id=debit.pk,
                    credit_account_id=credit.pk,
                    amount=abs(amount),
                    currency=account.currency,
                    code="adjustment",
                    reference=f"adjustment:{adjustment_id}",
                    metadata={"by": staff_user.pk, "reason": reason},
                )
            ]
        )
        staff_log_record(
            actor=staff_user,
            action="adjustment.create",
            target=f"adjustment:{adjustment_id}",
            subject_id=_player_id(account),
            reason=reason,
            data={"account": account.pk, "amount": amount, "currency": account.currency},
        )
        return Adjustment.objects.create(
            id=adjustment_id,
            account=account,
            amount=amount,
            reason=reason,
            created_by=staff_user,
            transfer_id=transfer_id,
        )


def correction_create(
    *,
    staff_user: AbstractBaseUser,
    from_user_id: int,
    to_user_id: int,
    amount: object,
    currency: object,
    reason: str,
    correction_id: uuid.UUID,
) -> Correction:
    """Moves ``amount`` from one player's cash to another's as one ledger transfer (code
    ``correction``) with the reason and the staff member in its metadata. Idempotent by
    ``correction_id``: the same id returns the first correction and moves nothing more."""
    reason = _staff_reason(
        staff_user, reason, what="A correction", permission="wallet.add_correction"
    )
    amount = check_amount(amount)
    currency = currency_validate(currency)
    if from_user_id == to_user_id:
        raise InvalidRequest("A correction moves money between two players.", code="same_player")
    existing = Correction.objects.filter(pk=correction_id).first()
    if existing is not None:
        return existing
    source = player_account(user_id=from_user_id, currency=currency)
    target = player_account(user_id=to_user_id, currency=currency)
    transfer_id = derived_id("correction", correction_id)
    try:
        with transaction.atomic(durable=True):
            ledger_post_transfers_in_transaction(
                transfers=[
                    TransferRequest(
                        id=transfer_id,
                        debit_account_id=source.pk,
                        credit_account_id=target.pk,
                        amount=amount,
                        currency=currency,
                        code="correction",
                        reference=f"correction:{correction_id}",
                        metadata={"by": staff_user.pk, "reason": reason},
                    )
                ]
            )
            staff_log_record(
                actor=staff_user,
                action="correction.create",
                target=f"correction:{correction_id}",
                subject_id=from_user_id,
                reason=reason,
                data={
                    "from_user": from_user_id,
                    "to_user": to_user_id,
                    "amount": amount,
                    "currency": currency,
                },
            )
            return Correction.objects.create(
                id=correction_id,
                from_account=source,
                to_account=target,
                amount=amount,
                currency=currency,
                reason=reason,
                created_by=staff_user,
                transfer_id=transfer_id,
            )
    except IntegrityError:  # the same correction raced us and won
        return Correction.objects.get(pk=correction_id)
