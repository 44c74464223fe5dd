"""The finance staff's review of withdrawals: the ones waiting for a decision, and one
withdrawal with what deciding it needs to know about its player (the profile's reads)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.db.models import Count, QuerySet, Sum
from django.utils import timezone

from backoffice.profile import player_balances, player_cases, player_results
from core.errors import NotFound
from fraud.models import Case
from staff.models import StaffAction
from wallet.kyc import kyc_status_of
from wallet.models import Deposit, Withdrawal
from wallet.services import withdrawal_needs_two_approvals

#: How far back the review looks at the player's deposits and results at the tables.
REVIEW_DAYS = 30
#: A case still being worked on: a withdrawal's reviewer must see it.
OPEN_CASE = (Case.Status.OPEN, Case.Status.REVIEWING)


def withdrawals_waiting() -> QuerySet[Withdrawal]:
    """Withdrawals whose funds are held awaiting staff (a first approval given or not),
    oldest first: the order they are to be decided in."""
    return (
        Withdrawal.objects.filter(status__in=Withdrawal.OPEN)
        .select_related("user", "first_approved_by")
        .order_by("created_at", "pk")
    )


def withdrawal_review(*, withdrawal_id: uuid.UUID) -> dict[str, Any]:
    """One withdrawal (with its first approval, if given) and its player's balances, KYC
    status, confirmed deposits and results at the tables over the last ``REVIEW_DAYS``
    days, open fraud cases, and the staff log lines about this withdrawal."""
    withdrawal = (
        Withdrawal.objects.select_related("user", "first_approved_by", "decided_by")
        .filter(pk=withdrawal_id)
        .first()
    )
    if withdrawal is None:
        raise NotFound(f"No withdrawal {withdrawal_id}.", code="withdrawal_not_found")
    user_id = withdrawal.user_id
    since = timezone.now() - timedelta(days=REVIEW_DAYS)
    deposits = (
        Deposit.objects.filter(
            user_id=user_id, status=Deposit.Status.CONFIRMED, created_at__gte=since
        )
        .values("currency")
        .annotate(count=Count("pk"), total=Sum("amount"))
        .order_by("currency")
    )
    return {
        "withdrawal": withdrawal,
        "two_approvals": withdrawal_needs_two_approvals(
            amount=withdrawal.amount, currency=withdrawal.currency
        ),
        "since": since,
        "balances": player_balances(user_id=user_id),
        "kyc": kyc_status_of(user_id=user_id),
        "deposits": [
            {"currency": d["currency"], "count": d["count"], "total": int(d["total"])}
            for d in deposits
        ],
        "results": player_results(user_id=user_id, since=since),
        "open_cases": list(player_cases(user_id=user_id).filter(status__in=OPEN_CASE)),
        "staff_log": list(
            StaffAction.objects.filter(target=f"withdrawal:{withdrawal.pk}")
            .select_related("actor")
            .order_by("at", "id")
        ),
    }
