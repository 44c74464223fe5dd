"""The staff log: one line per change a staff member makes, written with the change."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from staff.models import StaffAction


def staff_log_record(
    *,
    actor: AbstractBaseUser,
    action: str,
    target: str,
    subject_id: int | None = None,
    reason: str = "",
    data: dict[str, Any] | None = None,
) -> StaffAction:
    """Appends one line to the staff log: ``actor`` did ``action`` to ``target`` (about
    the player ``subject_id``, if any) because ``reason``.

    Call it inside the transaction that makes the change, so both commit or neither does.

    >>> staff_log_record(actor=staff, action="withdrawal.approve",
    ...                  target=f"withdrawal:{w.pk}", subject_id=w.user_id)  # doctest: +SKIP
    """
    return StaffAction.objects.create(
        actor=actor,
        action=action,
        target=target,
        subject_id=subject_id,
        reason=(reason or "").strip(),
        data=data or {},
    )
