"""Back-office reads: the live dashboard's figures, one query per figure where possible."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Count, Max, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce, TruncDate, TruncHour
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditRun
from fraud.models import Case
from handhistory.models import Hand
from ledger.models import AccountKind, Transfer
from poker.full_view import full_view_readable, full_view_watchable
from poker.hands import hand_state
from poker.models import Seat, Table, Variant
from wallet.amounts import currency_specs_all
from wallet.models import Deposit, Withdrawal

#: How far back the dashboard's charts look.
HANDS_CHART_HOURS = 30 * 24
RAKE_CHART_DAYS = 30


def live_tables(*, now: datetime, viewer: Any) -> list[dict[str, Any]]:
    """Every table not closed: stakes, players seated, the running hand's pot, hands
    started in the last hour, and, where the every-card rule lets ``viewer`` (``poker.
    full_view``), the links to its live staff view and to its last finished hand with
    every card (None where it does not: no permission, or seated there)."""
    # Counted in subqueries: joining seats and hands would multiply the rows of each.
    seated = Seat.objects.filter(table=OuterRef("pk")).values("table").annotate(n=Count("pk"))
    recent = (
        Hand.objects.filter(table=OuterRef("pk"), started_at__gte=now - timedelta(hours=1))
        .values("table")
        .annotate(n=Count("pk"))
    )
    tables = list(
        Table.objects.exclude(status=Table.Status.CLOSED)
        .annotate(
            seated=Coalesce(Subquery(seated.values("n")), 0),
            last_hour=Coalesce(Subquery(recent.values("n")), 0),
        )
        .select_related("current_hand")
        .order_by("name", "pk")
    )
    ids = [table.pk for table in tables]
    watchable = full_view_watchable(user=viewer, table_ids=ids)
    readable = full_view_readable(user=viewer, table_ids=ids)
    rows = []
    for table in tables:
        hand = table.current_hand
        pot = hand_state(hand)[0].total_pot if hand is not None else None
        rows.append(
            {
                "id": table.pk,
                "name": table.name,
                "variant": str(Variant(table.variant).label),
                "stakes": table.stakes_display,
                "currency": table.currency,
                "status": table.status,
                "seated": table.seated,
                "max_seats": table.max_seats,
                "pot": pot,
                "hand": hand.pk if hand is not None else None,
                "hands_last_hour": table.last_hour,
                "watch_url": (
                    reverse("web-table", args=[table.pk]) + "?full=1"
                    if table.pk in watchable
                    else None
                ),
                "last_hand": readable.get(table.pk),
                "hand_url": (
                    reverse("backoffice:hand", args=[readable[table.pk]])
                    if table.pk in readable
                    else None
                ),
            }
        )
    return rows


def hands_per_hour(*, now: datetime, hours: int = HANDS_CHART_HOURS) -> list[dict[str, Any]]:
    """Hands finished in each of the last ``hours`` hours (oldest first, zeros included)."""
    end = now.replace(minute=0, second=0, microsecond=0)
    start = end - timedelta(hours=hours - 1)
    counts = {
        row["hour"]: row["n"]
        for row in Hand.objects.filter(ended_at__gte=start)
        .annotate(hour=TruncHour("ended_at"))
        .values("hour")
        .annotate(n=Count("pk"))
    }
    slots = [start + timedelta(hours=i) for i in range(hours)]
    return [{"hour": slot.isoformat(), "hands": counts.get(slot, 0)} for slot in slots]


def rake_per_day(*, now: datetime, days: int = RAKE_CHART_DAYS) -> dict[str, Any]:
    """Rake taken per day and currency over the last ``days`` days, from the ledger (what
    was credited to the house's rake accounts): ``{"days": [...], "currencies": {c: [...]}}``."""
    today = timezone.localdate(now)
    first = today - timedelta(days=days - 1)
    rows = (
        Transfer.objects.filter(
            credit_account__kind=AccountKind.HOUSE_RAKE,
            created_at__date__gte=first,
            status__in=["posted", "posted_from_pending"],
        )
        .annotate(day=TruncDate("created_at"))
        .values("day", "currency")
        .annotate(total=Sum("amount"))
    )
    dates = [first + timedelta(days=i) for i in range(days)]
    currencies: dict[str, list[int]] = {}
    for row in rows:
        series = currencies.setdefault(row["currency"], [0] * days)
        series[(row["day"] - first).days] = int(row["total"])
    return {"days": [d.isoformat() for d in dates], "currencies": dict(sorted(currencies.items()))}


_SQL_PLAYERS_SINCE = {
    "postgresql": "SELECT COUNT(DISTINCT p) FROM poker_hand h "
    "CROSS JOIN LATERAL jsonb_array_elements_text(h.player_ids) p WHERE h.started_at >= %s",
    "sqlite": "SELECT COUNT(DISTINCT j.value) FROM poker_hand h, json_each(h.player_ids) j "
    "WHERE h.started_at >= %s",
}


def active_players(*, now: datetime) -> dict[str, int]:
    """Players seated now, and distinct players dealt into a hand in the last 24 hours."""
    seated = Seat.objects.values("player").distinct().count()
    with connection.cursor() as cursor:
        cursor.execute(_SQL_PLAYERS_SINCE[connection.vendor], [now - timedelta(hours=24)])
        (last_day,) = cursor.fetchone()
    return {"seated": seated, "last_24h": int(last_day)}


def _pending(
    model: type[Deposit] | type[Withdrawal], statuses: Iterable[str], url: str
) -> dict[str, Any]:
    by_currency = {
        row["currency"]: {"count": row["n"], "sum": int(row["total"])}
        for row in model.objects.filter(status__in=list(statuses))
        .values("currency")
        .annotate(n=Count("pk"), total=Sum("amount"))
        .order_by("currency")
    }
    return {
        "count": sum(c["count"] for c in by_currency.values()),
        "by_currency": by_currency,
        "url": url,
    }


def money_waiting() -> dict[str, Any]:
    """Deposits awaiting their gateway and withdrawals awaiting approval (a first one
    given or not): how many, how much per currency, and where they are listed (the
    admin's deposits; the withdrawals' review list)."""
    deposits = reverse("admin:wallet_deposit_changelist") + "?status__exact=pending"
    return {
        "deposits": _pending(Deposit, [Deposit.Status.PENDING], deposits),
        "withdrawals": _pending(Withdrawal, Withdrawal.OPEN, reverse("backoffice:withdrawals")),
    }


def fraud_cases() -> dict[str, Any]:
    """Open fraud cases by status, and the five highest scored with their review page."""
    counts = dict(
        Case.objects.filter(status__in=Case.LIVE)
        .values("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    top = Case.objects.filter(status__in=Case.LIVE).order_by("-score", "pk")[:5]
    return {
        "by_status": {status: counts.get(status, 0) for status in Case.LIVE},
        "top": [
            {
                "id": case.pk,
                "subject": case.subject,
                "kinds": list(case.kinds),
                "score": round(case.score, 2),
                "status": case.status,
                "url": reverse("admin:fraud_case_change", args=[case.pk]),
            }
            for case in top
        ],
    }


def audit_results() -> list[dict[str, Any]]:
    """The last finished run of every check (a check never run yet is listed without
    one), with its failures and its page in the admin."""
    latest = (
        AuditRun.objects.exclude(status=AuditRun.Status.RUNNING)
        .values("check_name")
        .annotate(last=Max("pk"))
        .values("last")
    )
    runs = {run.check_name: run for run in AuditRun.objects.filter(pk__in=latest)}
    rows = []
    for check in AuditRun.Check:
        run = runs.get(check.value)
        rows.append(
            {
                "check": check.value,
                "label": str(check.label),
                "run": None
                if run is None
                else {
                    "id": run.pk,
                    "status": run.status,
                    "ok": run.status == AuditRun.Status.PASSED,
                    "started_at": run.started_at.isoformat(),
                    "duration_ms": run.duration_ms,
                    "checked": run.checked,
                    "failure_count": run.failure_count,
                    "failures": run.failures[:5],
                    "url": reverse("admin:audit_auditrun_change", args=[run.pk]),
                },
            }
        )
    return rows


def dashboard_figures(*, viewer: Any) -> dict[str, Any]:
    """Everything the staff dashboard shows to ``viewer``, as JSON-ready data."""
    now = timezone.now()
    return {
        "generated_at": now.isoformat(),
        "tables": live_tables(now=now, viewer=viewer),
        "hands_per_hour": hands_per_hour(now=now),
        "rake_per_day": rake_per_day(now=now),
        "players": active_players(now=now),
        "money": money_waiting(),
        "fraud": fraud_cases(),
        "audits": audit_results(),
        # Amounts above are minor units: the page's script shows them in these currencies'.
        "currencies": currency_specs_all(),
    }
