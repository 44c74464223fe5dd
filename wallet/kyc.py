"""Know your customer: a player's verification status and its history.

Staff set the status (``kyc_status_set``: logged in the staff log as ``kyc.set``); a
player may only ask for review (``kyc_submit``: unverified or rejected -> pending). Every
change appends a ``KycStatusChange`` row in the change's own transaction. What the
status gates: ``withdrawal_request`` refuses withdrawals above
``WALLET_KYC_WITHDRAWAL_THRESHOLD`` unless ``verified`` (``kyc_withdrawal_check``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from core.errors import InvalidRequest, NotFound
from staff.log import staff_log_record
from staff.roles import staff_require
from wallet.errors import KycNotAllowed, KycRequired
from wallet.models import KycStatus, KycStatusChange

Status = KycStatus.Status


def kyc_status_of(*, user_id: int) -> str:
    """The player's status (``unverified`` when never set)."""
    status = KycStatus.objects.filter(user_id=user_id).values_list("status", flat=True).first()
    return status or Status.UNVERIFIED


def _locked(user_id: int) -> KycStatus:
    """The player's status row, created if missing and locked (caller's transaction)."""
    KycStatus.objects.bulk_create([KycStatus(user_id=user_id)], ignore_conflicts=True)
    return KycStatus.objects.select_for_update().get(user_id=user_id)


def _change(row: KycStatus, *, new: str, reason: str, by: AbstractBaseUser) -> KycStatusChange:
    change = KycStatusChange.objects.create(
        user_id=row.user_id, old_status=row.status, new_status=new, reason=reason, changed_by=by
    )
    row.status = new
    row.save(update_fields=["status", "note", "updated_at"])
    return change


#: Who may set a player's status: the risk role (and admins).
KYC_SET_PERMISSION = "wallet.change_kycstatus"


def kyc_status_set(
    *, staff_user: AbstractBaseUser, user_id: int, status: str, reason: str
) -> KycStatus:
    """Staff set a player's status, with a reason (history row and staff log ``kyc.set``).
    Setting the status it already has changes and records nothing."""
    staff_require(staff_user, KYC_SET_PERMISSION)
    if status not in Status.values:
        raise InvalidRequest(
            f"status must be one of {', '.join(Status.values)}, got {status!r}.",
            code="invalid_status",
            allowed=list(Status.values),
        )
    reason = (reason or "").strip()
    if not reason:
        raise InvalidRequest("Setting a KYC status needs a reason.", code="reason_required")
    if not get_user_model().objects.filter(pk=user_id).exists():
        raise NotFound(f"No user {user_id}.", code="user_not_found")
    with transaction.atomic(durable=True):
        row = _locked(user_id)
        if row.status == status:
            return row
        old = row.status
        _change(row, new=status, reason=reason, by=staff_user)
        staff_log_record(
            actor=staff_user,
            action="kyc.set",
            target=f"user:{user_id}",
            subject_id=user_id,
            reason=reason,
            data={"old": old, "new": status},
        )
        return row


def kyc_submit(*, user: AbstractBaseUser, note: str = "") -> KycStatus:
    """The player asks for review: unverified or rejected -> pending, with their note.
    Asking again while pending changes nothing; a verified player cannot ask."""
    note = (note or "").strip()[:2000]
    with transaction.atomic(durable=True):
        row = _locked(user.pk)
        if row.status == Status.PENDING:
            return row
        if row.status == Status.VERIFIED:
            raise KycNotAllowed("Your identity is already verified.", status=row.status)
        row.note = note
        _change(row, new=Status.PENDING, reason=note or "review requested by the player", by=user)
        return row


def kyc_withdrawal_check(*, user_id: int, amount: int, currency: str) -> None:
    """Raises ``KycRequired`` (403) for a withdrawal above the threshold by a player who
    is not verified. The threshold is per withdrawal, in the currency's minor units."""
    threshold = int(settings.WALLET_KYC_WITHDRAWAL_THRESHOLD)
    if amount <= threshold:
        return
    status = kyc_status_of(user_id=user_id)
    if status != Status.VERIFIED:
        raise KycRequired(
            f"Withdrawals above {threshold} {currency} minor units need a verified identity "
            f"(yours is {status}). Ask for a review on your wallet page.",
            threshold=threshold,
            status=status,
            currency=currency,
        )
