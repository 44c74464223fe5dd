"""Reads of tournaments: the lobby and one tournament as the API shows them.

Before the start: no tables, no level, every registered player with the starting stack;
in play: the level by the tournament's clock, its tables' seats, the standings with the
places and prizes. The prize pool is what the ledger's pool account holds, or the
guarantee when that is more (after the finish: paid out, zero).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from ledger.models import Account, AccountKind
from poker.models import Seat
from tournaments.models import Entry, Tournament
from tournaments.rules.structure import Clock, level_at, structure_from_data

LIVE = Q(entries__status=Entry.Status.REGISTERED)


def tournament_lobby(
    *,
    status: str | None = None,
    variant: str | None = None,
    currency: str | None = None,
    kind: str | None = None,
) -> QuerySet[Tournament]:
    """Tournaments, newest first, with their live entries counted (``live``)."""
    rows = Tournament.objects.annotate(live=Count("entries", filter=LIVE)).order_by("-id")
    if kind is not None:
        rows = rows.filter(kind=kind)
    if status is not None:
        rows = rows.filter(status=status)
    if variant is not None:
        rows = rows.filter(variant=variant)
    if currency is not None:
        rows = rows.filter(currency=currency)
    return rows


def lobby_currencies() -> list[str]:
    """The currencies tournaments are played in (the lobby's filter)."""
    return sorted(set(Tournament.objects.values_list("currency", flat=True)))


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


def tournament_clock(tournament: Tournament) -> Clock:
    """Where the tournament's one clock stands (level 1 before the start): from its start
    time, its structure and the hands its tables have finished."""
    structure = structure_from_data({"levels": tournament.levels, "breaks": tournament.breaks})
    now = timezone.now()
    return level_at(
        structure,
        started_at=tournament.started_at or now,
        now=now,
        hands_played=tournament.hands_played,
    )


def _level(tournament: Tournament) -> dict[str, Any] | None:
    """The running tournament's level by its one clock (null before the start and after
    the end)."""
    if tournament.status != Tournament.Status.RUNNING:
        return None
    clock = tournament_clock(tournament)
    return {
        "number": clock.number,
        "small_blind": clock.level.small_blind,
        "big_blind": clock.level.big_blind,
        "ante": clock.level.ante,
        "ends_at": clock.ends_at,
        "hands_left": clock.hands_left,
    }


def _break(tournament: Tournament) -> dict[str, Any] | None:
    """The break the running tournament's clock is on (no table deals a new hand until
    ``ends_at``), or null."""
    if tournament.status != Tournament.Status.RUNNING:
        return None
    clock = tournament_clock(tournament)
    if clock.on_break is None:
        return None
    return {
        "after_level": clock.on_break.after_level,
        "minutes": clock.on_break.minutes,
        "ends_at": clock.ends_at,
    }


def _tables(tournament: Tournament) -> tuple[list[dict[str, Any]], dict[int, Seat]]:
    """The tournament's tables with their seats, and each seated player's seat."""
    seats = list(
        Seat.objects.filter(tournament_id=tournament.pk)
        .select_related("player")
        .order_by("table_id", "number")
    )
    tables: dict[int, list[dict[str, Any]]] = {}
    for seat in seats:
        tables.setdefault(seat.table_id, []).append(
            {"seat": seat.number, "username": seat.player.get_username(), "stack": seat.chips}
        )
    return [{"id": pk, "seats": rows} for pk, rows in tables.items()], {
        s.player_id: s for s in seats
    }


def _chips(tournament: Tournament, entry: Entry) -> int:
    return tournament.starting_stack if entry.chips is None else entry.chips


def tournament_detail(*, tournament: Tournament, viewer_id: int | None) -> dict[str, Any]:
    """The tournament page's data; ``you`` is the viewer's place in it, or None. Standings:
    the players in play by chips (most first), then the placed by place; chips are as of
    each player's last hand end; ``bounties_won``: the bounties paid to each so far."""
    (row,) = tournament_rows(tournament_lobby().filter(pk=tournament.pk))
    live = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
        .select_related("player")
        .order_by("id")
    )
    standings = sorted(
        live, key=lambda e: (e.place is not None, e.place or 0, -_chips(tournament, e), e.pk)
    )
    tables, seat_of = _tables(tournament)
    mine = next((e for e in live if e.player_id == viewer_id), None)
    seat = seat_of.get(mine.player_id) if mine is not None else None
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
        "players_left": sum(1 for e in live if e.place is None),
        "payouts": projected_payouts(row["prize_pool"], tournament.payouts),
        "level": _level(tournament),
        "on_break": _break(tournament),
        "tables": tables,
        "standings": [
            {
                "username": e.player.get_username(),
                "chips": _chips(tournament, e),
                "place": e.place,
                "prize": e.prize,
                "bounties_won": e.bounties_won,
            }
            for e in standings
        ],
        "you": None
        if mine is None
        else {
            "table": None if seat is None else seat.table_id,
            "seat": None if seat is None else seat.number,
            "chips": _chips(tournament, mine),
            "place": mine.place,
            "prize": mine.prize,
            "bounties_won": mine.bounties_won,
        },
    }
