"""A player's profile for staff: everything the back office knows about one player."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, Q, QuerySet, Sum

from core.errors import NotFound
from fraud.models import Case
from handhistory.models import Event, PlayerHandResult
from ledger.models import Account, AccountKind
from poker.models import Table
from staff.models import StaffAction
from wallet.kyc import kyc_status_of
from wallet.models import KycStatusChange, Restriction
from wallet.selectors import account_deposit_limits

#: How many of the newest hands, sessions and staff log lines the profile lists.
RECENT = 50


def player_search(*, query: str, limit: int = 20) -> list[dict[str, Any]]:
    """Players whose username contains ``query`` (case-insensitive), exact match first."""
    query = (query or "").strip()
    if not query:
        return []
    users = get_user_model().objects.filter(username__icontains=query).order_by("username")
    found = list(users.values("id", "username", "date_joined", "is_staff")[: limit + 1])
    found.sort(key=lambda u: u["username"].lower() != query.lower())
    return found[:limit]


def _sessions(user_id: int) -> list[dict[str, Any]]:
    """Sit-down to leave periods per table, from the tables' own event streams (a session
    still running has no ``left_at``), newest first. The buy-in is everything brought to
    the table in the session (the first buy-in, then every top-up and rebuy), so a left
    session's net is what was cashed out less all of it."""
    events = (
        Event.objects.filter(
            type__in=["PlayerSat", "PlayerToppedUp", "PlayerLeft"], payload__user_id=user_id
        )
        .order_by("position")
        .values("stream", "type", "recorded_at", "payload")
    )
    open_at: dict[str, dict[str, Any]] = {}
    sessions: list[dict[str, Any]] = []
    for e in events:
        if e["type"] == "PlayerSat":
            session = {
                "stream": e["stream"],
                "sat_at": e["recorded_at"],
                "left_at": None,
                "buy_in": e["payload"]["buy_in"],
                "cashed_out": None,
                "net": None,
            }
            open_at[e["stream"]] = session
            sessions.append(session)
        elif e["stream"] not in open_at:
            continue
        elif e["type"] == "PlayerToppedUp":
            open_at[e["stream"]]["buy_in"] += e["payload"]["amount"]
        else:
            session = open_at.pop(e["stream"])
            session["left_at"] = e["recorded_at"]
            session["cashed_out"] = e["payload"]["cashed_out"]
            session["net"] = session["cashed_out"] - session["buy_in"]
    ids = {int(s["stream"].split("-", 1)[1]) for s in sessions if s["stream"].startswith("table-")}
    tables = {t.pk: t for t in Table.objects.filter(pk__in=ids)}
    for s in sessions:
        table = tables.get(int(s["stream"].split("-", 1)[1]))
        s["table"] = table
        s["currency"] = table.currency if table else ""
    return sessions[::-1][:RECENT]


def player_balances(*, user_id: int) -> list[dict[str, Any]]:
    """The player's cash per currency they hold an account in: balance, held (pending
    withdrawals) and available."""
    accounts = Account.objects.filter(kind=AccountKind.PLAYER_CASH, owner_ref=f"user:{user_id}")
    return [
        {"currency": a.currency, "balance": a.balance, "held": a.held, "available": a.available}
        for a in accounts.order_by("currency")
    ]


def player_results(*, user_id: int, since: datetime | None = None) -> list[dict[str, Any]]:
    """The player's hands per table currency (ended since ``since``, if given): how many,
    how many won, and the net result after rake."""
    results = PlayerHandResult.objects.filter(player_id=user_id)
    if since is not None:
        results = results.filter(ended_at__gte=since)
    totals = (
        results.values("table__currency")
        .annotate(hands=Count("pk"), net_total=Sum("net"), won=Count("pk", filter=Q(net__gt=0)))
        .order_by("table__currency")
    )
    return [
        {
            "currency": t["table__currency"],
            "hands": t["hands"],
            "won": t["won"],
            "net": int(t["net_total"] or 0),
        }
        for t in totals
    ]


def player_cases(*, user_id: int) -> QuerySet[Case]:
    """The fraud cases involving the player, newest first."""
    return Case.objects.filter(players=user_id).order_by("-created_at")


def player_profile(*, user_id: int) -> dict[str, Any]:
    """The player, their balances (available and held per currency), deposit limits,
    identity (KYC) status and its history, holds, table
    sessions, hands and results (totals per currency and the newest hands), the fraud
    cases involving them and the staff log lines about them."""
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise NotFound(f"No player {user_id}.", code="player_not_found")
    results = PlayerHandResult.objects.filter(player_id=user_id)
    hands = list(results.select_related("table").order_by("-ended_at", "-hand_id")[:RECENT])
    cases = player_cases(user_id=user_id)
    # Lines about several players (a case, a hand viewed) name them in ``data.players``;
    # SQLite (``make run``) cannot search JSON arrays, so there only the cases' lines join.
    about = Q(subject_id=user_id) | Q(target__in=[f"case:{c.pk}" for c in cases])
    if connection.features.supports_json_field_contains:
        about |= Q(data__players__contains=[user_id])
    log = StaffAction.objects.filter(about).select_related("actor")[:RECENT]
    return {
        "user": user,
        "balances": player_balances(user_id=user_id),
        "restrictions": list(
            Restriction.objects.filter(user_id=user_id).select_related("created_by", "lifted_by")
        ),
        # Only the limits a player set (every currency and period would be mostly "none").
        "deposit_limits": [
            row
            for row in account_deposit_limits(user_id=user_id)
            if row["limit"] is not None or row["pending"] is not None
        ],
        "kyc": kyc_status_of(user_id=user_id),
        "kyc_history": list(
            KycStatusChange.objects.filter(user_id=user_id)
            .select_related("changed_by")
            .order_by("-created_at")[:RECENT]
        ),
        "sessions": _sessions(user_id),
        "totals": player_results(user_id=user_id),
        "hands": hands,
        "cases": list(cases),
        "staff_log": list(log),
    }
