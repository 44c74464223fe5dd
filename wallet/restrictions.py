"""Holds on an account: imposing, lifting and checking them.

A restriction blocks some of what a player does with money (``BLOCKS``). The checks are
where money moves or play resumes: ``deposit_create``, ``withdrawal_request``,
``seat_buy_in`` (a seat or a top-up) and the table's sit-in. Restrictions are imposed by
other services (a confirmed fraud case; the player's own time-out or self-exclusion,
``wallet.responsible``) and lifted by staff only; every row stays as the account's history.

In force: a row not lifted, except a time-out whose ``ends_at`` has passed (it ends by
itself). A self-exclusion stays in force after its ``ends_at`` until staff lift it, and
neither a time-out nor a self-exclusion can be lifted before its ``ends_at``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import InvalidRequest, NotFound
from staff.log import staff_log_record
from staff.roles import staff_require
from wallet.errors import AccountRestricted, RestrictionMinimumTerm, RestrictionNotActive
from wallet.models import Restriction

Action = Literal["withdraw", "play", "deposit"]

#: What each kind of restriction blocks. A time-out or self-exclusion leaves withdrawals
#: open: a player who stops must be able to take their money out. "play" covers every
#: way onto a table: a new seat (the table's join), a top-up and sitting back in.
BLOCKS: dict[str, frozenset[Action]] = {
    Restriction.Kind.FRAUD_FREEZE: frozenset({"withdraw", "play"}),
    Restriction.Kind.TIME_OUT: frozenset({"deposit", "play"}),
    Restriction.Kind.SELF_EXCLUSION: frozenset({"deposit", "play"}),
}

#: The kinds a player takes themselves: shown to them, and they take them off the tables.
SELF_IMPOSED = (Restriction.Kind.TIME_OUT, Restriction.Kind.SELF_EXCLUSION)


def in_force(at: datetime) -> Q:
    """The restrictions in force at ``at`` (see the module docstring)."""
    return Q(lifted_at__isnull=True) & ~Q(kind=Restriction.Kind.TIME_OUT, ends_at__lte=at)


def _until(restriction: Restriction) -> str:
    assert restriction.ends_at is not None
    return restriction.ends_at.strftime("%Y-%m-%d %H:%M UTC")


def _self_imposed_message(restriction: Restriction, action: Action) -> str:
    if restriction.kind == Restriction.Kind.SELF_EXCLUSION:
        assert restriction.ends_at is not None
        if restriction.ends_at <= timezone.now():
            return f"You have excluded yourself from play until support lifts it: {_WHAT[action]}."
        return (
            f"You have excluded yourself from play until at least {_until(restriction)} "
            f"(then until support lifts it): {_WHAT[action]}."
        )
    return f"You are on a time-out until {_until(restriction)}: {_WHAT[action]}."


_WHAT = {
    "withdraw": "withdrawals are unavailable",
    "play": "table play is unavailable",
    "deposit": "deposits are unavailable",
}


def restriction_check(*, user_id: int, action: Action) -> None:
    """Raises ``AccountRestricted`` when a restriction in force blocks ``action``.

    A time-out or self-exclusion is named, with until when; a hold imposed by staff
    only says "under review" (players never learn that they are watched), and it is
    never named when a self-imposed one blocks too.
    """
    rows = Restriction.objects.filter(in_force(timezone.now()), user_id=user_id)
    blocking = [r for r in rows if action in BLOCKS.get(r.kind, frozenset())]
    if not blocking:
        return
    own = [r for r in blocking if r.kind in SELF_IMPOSED]
    if own:
        # A self-exclusion outlasts any time-out; among time-outs the latest end counts.
        shown = max(own, key=lambda r: (r.kind == Restriction.Kind.SELF_EXCLUSION, r.ends_at))
        raise AccountRestricted(
            _self_imposed_message(shown, action),
            action=action,
            kind=shown.kind,
            until=shown.ends_at.isoformat() if shown.ends_at else None,
        )
    raise AccountRestricted(
        f"Your account is under review: {_WHAT[action]}. Please contact support.",
        action=action,
    )


def restriction_barred_from_tables(*, user_ids: Iterable[int]) -> set[int]:
    """Those of ``user_ids`` under a time-out or self-exclusion in force: the table
    cashes them out as soon as they are not in a running hand."""
    return set(
        Restriction.objects.filter(
            in_force(timezone.now()), user_id__in=list(user_ids), kind__in=SELF_IMPOSED
        ).values_list("user_id", flat=True)
    )


def restriction_impose(
    *, user_id: int, kind: str, source: str, reason: str, by: AbstractBaseUser | None
) -> tuple[Restriction, bool]:
    """Imposes a ``kind`` hold on the user; idempotent by (user, ``source``) while active:
    (the hold, whether this call created it).

    Runs inside the caller's transaction when there is one (a case confirmation freezes
    its players all at once, or none).
    """
    if kind not in BLOCKS:
        raise InvalidRequest(f"Unknown restriction kind {kind!r}.", code="unknown_restriction")
    if kind in SELF_IMPOSED:  # they have an end and take the player off the tables
        raise InvalidRequest(
            f"A {kind} is taken by the player (wallet.responsible).", code="self_imposed_only"
        )
    reason = (reason or "").strip()
    if not reason:
        raise InvalidRequest("A restriction needs a reason.", code="reason_required")
    existing = Restriction.objects.filter(
        user_id=user_id, source=source, lifted_at__isnull=True
    ).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            created = Restriction.objects.create(
                user_id=user_id, kind=kind, source=source, reason=reason, created_by=by
            )
            return created, True
    except IntegrityError:  # the same hold raced us and won
        return Restriction.objects.get(
            user_id=user_id, source=source, lifted_at__isnull=True
        ), False


def restriction_lift(*, restriction_id: int, reason: str, by: AbstractBaseUser) -> Restriction:
    """Lifts an active hold (staff with ``wallet.lift_restriction``); the row keeps who
    lifted it, when and why, and the staff log says so (``restriction.lift``). A time-out
    or self-exclusion is never lifted before its ``ends_at`` (``restriction_minimum_term``)."""
    staff_require(by, "wallet.lift_restriction")
    reason = (reason or "").strip()
    if not reason:
        raise InvalidRequest("Lifting a restriction needs a reason.", code="reason_required")
    with transaction.atomic():
        restriction = Restriction.objects.select_for_update().filter(pk=restriction_id).first()
        if restriction is None:
            raise NotFound(f"No restriction {restriction_id}.", code="restriction_not_found")
        if restriction.lifted_at is not None:
            raise RestrictionNotActive(
                f"Restriction {restriction_id} was already lifted.", restriction=restriction_id
            )
        now = timezone.now()
        if restriction.ends_at is not None and restriction.ends_at > now:
            raise RestrictionMinimumTerm(
                f"This {restriction.get_kind_display().lower()} runs until "
                f"{_until(restriction)}; it cannot be lifted before.",
                restriction=restriction_id,
                ends_at=restriction.ends_at.isoformat(),
            )
        restriction.lifted_at = now
        restriction.lifted_by = by  # type: ignore[assignment]  # the key is typed as the concrete user model; services take any signed-in user
        restriction.lift_reason = reason
        restriction.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        staff_log_record(
            actor=by,
            action="restriction.lift",
            target=f"restriction:{restriction.pk}",
            subject_id=restriction.user_id,
            reason=reason,
            data={"kind": restriction.kind},
        )
        return restriction
