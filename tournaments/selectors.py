"""Reads of tournaments: the lobby and one tournament as the API shows them.

What needs play (tables, levels, places, prizes) says what is true before the start:
no tables, no level, every registered player with the starting stack. The prize pool is
what the ledger's pool account holds, or the guarantee when that is more.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet

from ledger.models import Account, AccountKind
from tournaments.models import Entry, Tournament

LIVE = Q(entries__status=Entry.Status.REGISTERED)


def tournament_lobby(
    *, status: str | None = None, variant: str | None = None, currency: str | None = None
) -> QuerySet[Tournament]:
    """Tournaments, newest first, with their live entries counted (``live``)."""
    rows = Tournament.objects.annotate(live=Count("entries", filter=LIVE)).order_by("-id")
    if status is not None:
        rows = rows.filter(status=status)
    if variant is not None:
        rows = rows.filter(variant=variant)
    if currency is not None:
        rows = rows.filter(currency=currency)
    return rows


def _pools(tournaments: Iterable[Tournament]) -> dict[str, int]:
    """The prize pool account's balance of each tournament, by owner ref."""
    refs = [t.owner_ref for t in tournaments]
    return dict(
        Account.objects.filter(kind=AccountKind.TOURNAMENT_POOL, owner_ref__in=refs).values_list(
            "owner_ref", "balance"
        )
    )


def _prize_pool(tournament: Tournament, pooled: int) -> int:
    if tournament.status == Tournament.Status.CANCELLED:
        return pooled
    return max(tournament.guarantee, pooled)


def projected_payouts(pool: int, percentages: list[str] | None) -> dict[str, int]:
    """Place -> amount of ``pool`` by the structure's percentages (hundredths of a
    percent, so integer arithmetic); the rounding remainder goes to the first place.
    Without percentages the room's default table decides at the start: nothing yet.

    >>> projected_payouts(1001, ["50", "30", "20"])
    {'1': 501, '2': 300, '3': 200}
    """
    if not percentages:
        return {}
    basis = [int(Decimal(p) * 100) for p in percentages]
    amounts = [pool * b // 10_000 for b in basis]
    amounts[0] += pool - sum(amounts)
    return {str(place): amount for place, amount in enumerate(amounts, start=1)}


def _start(tournament: Tournament) -> str:
    return tournament.starts_at.isoformat() if tournament.starts_at else "when_full"


def tournament_rows(tournaments: Iterable[Tournament]) -> list[dict[str, Any]]:
    """Lobby rows of ``tournaments`` (from :func:`tournament_lobby`): one query for pools."""
    rows = list(tournaments)
    pools = _pools(rows)
    return [
        {
            "id": t.pk,
            "name": t.name,
            "kind": t.kind,
            "variant": t.variant,
            "currency": t.currency,
            "buy_in": t.buy_in,
            "fee": t.fee,
            "bounty": t.bounty,
            "starting_stack": t.starting_stack,
            "status": t.status,
            "start": _start(t),
            "entries": t.live,  # type: ignore[attr-defined]  # annotated by the lobby query (tournament_lobby)
            "max_players": t.max_players,
            "guarantee": t.guarantee,
            "prize_pool": _prize_pool(t, pools.get(t.owner_ref, 0)),
        }
        for t in rows
    ]


def tournament_detail(*, tournament: Tournament, viewer_id: int | None) -> dict[str, Any]:
    """The tournament page's data; ``you`` is the viewer's place in it, or None."""
    (row,) = tournament_rows(tournament_lobby().filter(pk=tournament.pk))
    live = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
        .select_related("player")
        .order_by("id")
    )
    mine = next((e for e in live if e.player_id == viewer_id), None)
    return {
        **row,
        "seats_per_table": tournament.seats_per_table,
        "min_players": tournament.min_players,
        "levels": tournament.levels,
        "breaks": tournament.breaks,
        "late_registration_levels": tournament.late_registration_levels,
        "rebuy": tournament.rebuy,
        "add_on": tournament.add_on,
        "payout_percentages": tournament.payouts,
        "action_seconds": tournament.action_seconds,
        "cancel_reason": tournament.cancel_reason,
        "players_left": len(live),
        "payouts": projected_payouts(row["prize_pool"], tournament.payouts),
        "level": None,
        "tables": [],
        "standings": [
            {
                "username": e.player.get_username(),
                "chips": tournament.starting_stack,
                "place": None,
                "prize": None,
            }
            for e in live
        ],
        "you": None
        if mine is None
        else {
            "table": None,
            "seat": None,
            "chips": tournament.starting_stack,
            "place": None,
            "prize": None,
        },
    }
