"""Holds on an account: imposing, lifting and checking them.

A restriction blocks some of what a player does with money (``BLOCKS``). The checks are
where money moves or play resumes: ``withdrawal_request``, ``seat_buy_in`` (a seat or a
top-up) and the table's sit-in. Restrictions are imposed by other services (a confirmed
fraud case today) and lifted by staff only; every row stays as the account's history.
"""

from __future__ import annotations

from typing import Literal

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from backoffice.roles import staff_require
from core.errors import InvalidRequest, NotFound
from wallet.errors import AccountRestricted, RestrictionNotActive
from wallet.models import Restriction

Action = Literal["withdraw", "play", "deposit"]

#: What each kind of restriction blocks.
BLOCKS: dict[str, frozenset[Action]] = {
    Restriction.Kind.FRAUD_FREEZE: frozenset({"withdraw", "play"}),
}

_WHAT = {
    "withdraw": "withdrawals are unavailable",
    "play": "table play is unavailable",
    "deposit": "deposits are unavailable",
}


def restriction_check(*, user_id: int, action: Action) -> None:
    """Raises ``AccountRestricted`` when an active restriction blocks ``action``."""
    kinds = Restriction.objects.filter(user_id=user_id, lifted_at__isnull=True).values_list(
        "kind", flat=True
    )
    if any(action in BLOCKS.get(kind, frozenset()) for kind in kinds):
        raise AccountRestricted(
            f"Your account is under review: {_WHAT[action]}. Please contact support.",
            action=action,
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
    """Lifts an active hold (staff only); the row keeps who lifted it, when and why."""
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
        restriction.lifted_at = timezone.now()
        restriction.lifted_by = by  # type: ignore[assignment]
        restriction.lift_reason = reason
        restriction.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        return restriction
