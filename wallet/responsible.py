"""Responsible gaming, as the player sets it: deposit limits, a time-out, self-exclusion.

Deposit limits (``DepositLimit``): per real currency and period (24 hours, 7 days,
30 days, each a rolling window). A first or lower limit holds at once and cancels a
pending raise; a higher one, or removing one, waits ``WALLET_LIMIT_RAISE_DELAY_HOURS``.
Every change is appended to ``DepositLimitChange``. ``deposit_create`` enforces them.

Time-out (24 hours to 6 weeks) and self-exclusion (6 months or more): ``Restriction``
rows (``wallet.restrictions``) that block deposits and play but not withdrawals. A
player may extend theirs by taking a longer one, never shorten it; only staff lift a
self-exclusion, and not before its end. Taking one takes the player off their tables
(``RESTRICTION_HOOKS``): at once where they are not in the running hand, at the end of
that hand otherwise.
"""

from __future__ import annotations

import calendar
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import InvalidRequest
from ledger.posting import check_amount
from wallet.errors import InvalidDuration, InvalidPeriod, RestrictionInForce
from wallet.models import DepositLimit, DepositLimitChange, Restriction
from wallet.restrictions import SELF_IMPOSED, in_force
from wallet.services import PLAY_MONEY, currency_validate

TIME_OUT_HOURS = (24, 6 * 7 * 24)
#: Six months at least; ten years at most (a bound for the date arithmetic, not a policy:
#: a self-exclusion holds past its end until staff lift it anyway).
SELF_EXCLUSION_MONTHS = (6, 120)

#: Called with ``player_id`` and the ``restriction`` after a player took a time-out or
#: self-exclusion, and again on a retry of the same request. The poker app registers its
#: unseating here (``poker.commands.seating.restriction_unseat``): the tables sit above
#: the wallet, which therefore names none of them.
RESTRICTION_HOOKS: list[Callable[..., None]] = []


# --- deposit limits ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class LimitChange:
    """What ``deposit_limit_set`` did: the row, and when the new value holds."""

    limit: DepositLimit
    effective_from: datetime
    immediate: bool


def period_validate(value: object) -> DepositLimit.Period:
    if not isinstance(value, str) or value not in DepositLimit.Period.values:
        raise InvalidPeriod(
            f"period must be one of {', '.join(DepositLimit.Period.values)}, got {value!r}.",
            allowed=list(DepositLimit.Period.values),
        )
    return DepositLimit.Period(value)


def deposit_limit_set(
    *, user: AbstractBaseUser, currency: object, period: object, amount: object
) -> LimitChange:
    """Sets the player's deposit limit for ``currency`` over ``period`` to ``amount``
    (minor units; None removes it). A first or lower limit holds at once and cancels any
    pending raise; a higher one or a removal is kept pending for
    ``WALLET_LIMIT_RAISE_DELAY_HOURS``. The same value again changes nothing.

    Setting a limit is idempotent by its value, so REST retries need no derived id.
    """
    currency = currency_validate(currency)
    if currency == PLAY_MONEY:  # a bad value here, not a refused movement: 400
        raise InvalidRequest(
            f"{PLAY_MONEY} is play money: it has no deposits to limit.",
            code="currency_not_allowed",
            currency=currency,
        )
    period = period_validate(period)
    new = None if amount is None else check_amount(amount)
    delay = timedelta(hours=int(settings.WALLET_LIMIT_RAISE_DELAY_HOURS))
    with transaction.atomic(durable=True):
        limit = _locked_limit(user_id=user.pk, currency=currency, period=period)
        now = timezone.now()
        current = limit.in_force(now)
        if limit.pending_from is not None and limit.pending_from <= now:
            # The raise has come due: it is the value in force from here on.
            limit.amount, limit.pending_amount, limit.pending_from = current, None, None
        lowering = new is not None and (current is None or new <= current)
        if lowering:
            effective_from = now
            changed = new != current or limit.pending_from is not None
            limit.amount, limit.pending_amount, limit.pending_from = new, None, None
        elif new is None and current is None:  # removing no limit: nothing to wait for
            return LimitChange(limit=limit, effective_from=now, immediate=True)
        else:
            already = limit.pending_from is not None and limit.pending_amount == new
            effective_from = limit.pending_from if already else now + delay  # type: ignore[assignment]  # pending_from is set whenever already is true
            changed = not already
            limit.pending_amount, limit.pending_from = new, effective_from
        if changed:
            limit.save()
            DepositLimitChange.objects.create(
                user_id=user.pk,
                currency=currency,
                period=period,
                old_amount=current,
                new_amount=new,
                effective_from=effective_from,
                created_by=user,
            )
        return LimitChange(limit=limit, effective_from=effective_from, immediate=lowering)


def _locked_limit(*, user_id: int, currency: str, period: str) -> DepositLimit:
    """The player's limit row, locked (created empty on first use)."""
    rows = DepositLimit.objects.select_for_update()
    found = rows.filter(user_id=user_id, currency=currency, period=period).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return DepositLimit.objects.create(user_id=user_id, currency=currency, period=period)
    except IntegrityError:  # a first limit set at the same time: take its row
        return rows.get(user_id=user_id, currency=currency, period=period)


# --- time-out and self-exclusion ------------------------------------------------------------


def _whole(value: object, *, name: str, bounds: tuple[int, int], unit: str) -> int:
    low, high = bounds
    if type(value) is not int or not low <= value <= high:
        raise InvalidDuration(
            f"{name} must be a whole number of {unit} from {low} to {high}, got {value!r}.",
            field=name,
            min=low,
            max=high,
        )
    return value


def _add_months(at: datetime, months: int) -> datetime:
    """``at`` plus calendar months (the 31st becomes the month's last day)."""
    month_index = at.month - 1 + months
    year, month = at.year + month_index // 12, month_index % 12 + 1
    day = min(at.day, calendar.monthrange(year, month)[1])
    return at.replace(year=year, month=month, day=day)


def timeout_start(
    *, user: AbstractBaseUser, hours: object, restriction_id: uuid.UUID
) -> Restriction:
    """A time-out of ``hours`` (24 to 1008) from now. Idempotent by ``restriction_id``."""
    hours = _whole(hours, name="hours", bounds=TIME_OUT_HOURS, unit="hours")
    return _self_restrict(
        user=user,
        kind=Restriction.Kind.TIME_OUT,
        ends_at=timezone.now() + timedelta(hours=hours),
        restriction_id=restriction_id,
        what=f"{hours} hours",
    )


def self_exclusion_start(
    *, user: AbstractBaseUser, months: object, restriction_id: uuid.UUID
) -> Restriction:
    """Self-exclusion for at least ``months`` (6 or more): it ends only when staff lift it,
    not before then. Idempotent by ``restriction_id``."""
    months = _whole(months, name="months", bounds=SELF_EXCLUSION_MONTHS, unit="months")
    return _self_restrict(
        user=user,
        kind=Restriction.Kind.SELF_EXCLUSION,
        ends_at=_add_months(timezone.now(), months),
        restriction_id=restriction_id,
        what=f"{months} months",
    )


def _self_restrict(
    *,
    user: AbstractBaseUser,
    kind: Restriction.Kind,
    ends_at: datetime,
    restriction_id: uuid.UUID,
    what: str,
) -> Restriction:
    source = f"self:{restriction_id}"
    existing = Restriction.objects.filter(user_id=user.pk, source=source).first()
    if existing is None:
        existing = _self_restrict_create(
            user=user, kind=kind, ends_at=ends_at, source=source, what=what
        )
    # Also on a retry: a seat taken off before a crash is not found again, one not yet is.
    for hook in RESTRICTION_HOOKS:
        hook(player_id=user.pk, restriction=existing)
    return existing


def _self_restrict_create(
    *, user: AbstractBaseUser, kind: Restriction.Kind, ends_at: datetime, source: str, what: str
) -> Restriction:
    try:
        with transaction.atomic(durable=True):
            # One change of a player's own restrictions at a time: the longest-running
            # check below then sees every one committed before.
            get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk").get()
            running = list(
                Restriction.objects.filter(
                    in_force(timezone.now()), user_id=user.pk, kind__in=SELF_IMPOSED
                )
            )
            for held in running:
                assert held.ends_at is not None
                excluded = held.kind == Restriction.Kind.SELF_EXCLUSION
                if held.ends_at >= ends_at or (excluded and kind == Restriction.Kind.TIME_OUT):
                    raise RestrictionInForce(
                        f"Your {held.get_kind_display().split(' (')[0].lower()} already runs "
                        f"until {held.ends_at:%Y-%m-%d %H:%M} UTC: it can be extended, never "
                        f"shortened.",
                        kind=held.kind,
                        ends_at=held.ends_at.isoformat(),
                    )
            return Restriction.objects.create(
                user_id=user.pk,
                kind=kind,
                source=source,
                ends_at=ends_at,
                created_by=user,
                reason=f"Taken by the player: {what}.",
            )
    except IntegrityError:  # the same request raced us and won
        return Restriction.objects.get(user_id=user.pk, source=source)
