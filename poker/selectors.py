"""Reads: the lobby, a player's private view of a table, and hand histories with privacy.

What a viewer may see is decided by ``poker.engine.privacy`` alone: a viewer sees their own hole
cards; another player's hole cards only once that player showed them (a ``CardsShown``
event); staff with ``full=True`` see everything. This module only calls its rules: the
seats' cards (``cards_on_the_table``), the private part (``private_part``), who reads a
hand (``may_read_hand``); hand histories go through ``HandRecord.seen_by``, as the
exports do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Avg, Count, Min, QuerySet, Sum
from django.utils import timezone

from core.errors import NotFound
from handhistory.exports.records import STAFF, Viewer, hand_record, hand_records
from handhistory.models import Hand, HandSummary, PlayerHandResult
from handhistory.projections import summary_players
from handhistory.readable import position_labels, readable_hand
from handhistory.store import stream_events
from poker import tournament_hooks
from poker.engine.cards import format_cards
from poker.engine.events import HoleCardsDealt, event_from_dict
from poker.engine.privacy import cards_on_the_table, may_read_hand, on_the_wire, private_part
from poker.engine.state import HandState
from poker.fairness import next_deck_commitment
from poker.hands import hand_state
from poker.models import Seat, Table
from poker.published import published
from poker.table_events import read_updates
from wallet.amounts import currency_spec


def table_public(table: Table) -> dict[str, Any]:
    """A table's configuration as the lobby shows it."""
    return {
        "id": table.pk,
        "name": table.name,
        "variant": table.variant,
        "currency": table.currency,
        "small_blind": table.small_blind,
        "big_blind": table.big_blind,
        "ante": table.ante,
        "stakes_label": table.stakes_label,
        "stakes_display": table.stakes_display,
        "currency_spec": currency_spec(table.currency),
        "max_seats": table.max_seats,
        "min_buy_in": table.min_buy_in,
        "max_buy_in": table.max_buy_in,
        "rake_bps": table.rake_bps,
        "rake_cap": table.rake_cap,
        "action_seconds": table.action_seconds,
        "status": table.status,
    }


def lobby() -> list[dict[str, Any]]:
    """Every cash table that is not closed, with seats taken and the average pot (a
    tournament's tables are reached from its tournament: nobody sits at them from here)."""
    tables = (
        Table.objects.exclude(status=Table.Status.CLOSED)
        .filter(tournament_id__isnull=True)
        .annotate(seats_taken=Count("seats"))
        .order_by("pk")
    )
    averages = dict(
        HandSummary.objects.values_list("table_id")
        .annotate(avg=Avg("total_pot"))
        .values_list("table_id", "avg")
    )
    return [
        {
            **table_public(t),
            "seats_taken": t.seats_taken,
            "average_pot": int(averages.get(t.pk) or 0),
        }
        for t in tables
    ]


@contextmanager
def one_snapshot() -> Iterator[None]:
    """Runs several reads against ONE database snapshot (a read-only repeatable-read
    transaction on PostgreSQL), so a commit landing between them cannot pair a table
    version with the content of another version. Inside a caller's transaction the
    caller's own view is used as it is."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def table_view(*, table_id: int, viewer_id: int | None) -> dict[str, Any]:
    """The viewer's private view of a table: public state + their own cards and options,
    read from one snapshot so its version matches its content."""
    with one_snapshot():
        return _table_view(table_id, viewer_id)


def _table_view(table_id: int, viewer_id: int | None) -> dict[str, Any]:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(f"No table {table_id}.", code="table_not_found", table=table_id)
    hand = Hand.objects.filter(pk=table.current_hand_id).first() if table.current_hand_id else None
    state = hand_state(hand)[0] if hand is not None else None
    seats = list(Seat.objects.filter(table=table).select_related("player", "stake_account"))
    return _view(table, hand, state, viewer_id, seats)


def public_view(
    *, table: Table, hand: Hand | None, state: HandState | None, seats: list[Seat]
) -> dict[str, Any]:
    """What everyone may see (no ``you``), from a command's in-memory working set
    (``seats`` with their player and current stake account)."""
    if hand is None or table.current_hand_id != hand.pk:
        hand, state = None, None
    view = _view(table, hand, state, None, sorted(seats, key=lambda s: s.number))
    del view["you"]
    return view


def _view(
    table: Table,
    hand: Hand | None,
    state: HandState | None,
    viewer_id: int | None,
    seats: list[Seat],
) -> dict[str, Any]:
    index_of = {pid: i for i, pid in enumerate(hand.player_ids)} if hand is not None else {}
    seat_rows = []
    you: dict[str, Any] | None = None
    for seat in seats:
        row: dict[str, Any] = {
            "seat": seat.number,
            "user_id": seat.player_id,
            "username": seat.player.get_username(),
            "state": seat.state,
            "stack": seat.stack,
            "bet": 0,
            "in_hand": False,
            "folded": False,
            "all_in": False,
            "cards": None,
        }
        i = index_of.get(seat.player_id)
        if state is not None and i is not None:
            row.update(
                stack=state.stacks[i],
                bet=state.bets[i],
                in_hand=True,
                folded=not state.active[i],
                all_in=state.all_in[i],
                cards=cards_on_the_table(state, i),
            )
        seat_rows.append(row)
        if seat.player_id == viewer_id:
            you = private_part(seat.number, seat.state, state, i)
    hand_view = None
    if hand is not None and state is not None:
        actor = state.actor
        hand_view = {
            "id": hand.pk,
            "number": hand.number,
            "button_seat": table.button_seat,
            "street": state.street_name,
            "phase": state.phase,
            "board": format_cards(state.board),
            "pots": [
                {"amount": p.amount, "eligible_seats": [hand.seat_numbers[e] for e in p.eligible]}
                for p in state.pots
            ],
            "total_pot": state.total_pot,
            "actor_seat": hand.seat_numbers[actor] if actor is not None else None,
            "deadline": hand.deadline.isoformat() if hand.deadline else None,
            # Until then the actor spends the action time; after it, their time bank.
            "action_deadline": (
                (hand.turn_started_at + timedelta(seconds=table.action_seconds)).isoformat()
                if hand.deadline and hand.turn_started_at
                else None
            ),
        }
    return {
        "table": table_public(table),
        **tournament_part(table),
        "version": table.version,
        "seats": seat_rows,
        "hand": hand_view,
        # While the last hand's result is shown: when the next hand is due.
        "next_hand_at": table.next_hand_at.isoformat() if table.next_hand_at else None,
        # The commitment to the next hand's secret seed, public before its client seeds are
        # read (poker.fairness); it becomes that hand's HandStarted.deck_commitment.
        "next_deck_commitment": next_deck_commitment(table.next_server_seed),
        "you": you,
    }


def tournament_part(table: Table) -> dict[str, Any]:
    """What a view says of the table's tournament: ``tournament`` (its id and this table's
    number there) and ``level`` (the blinds and antes it plays now, from the tournament:
    null while no director is registered); both null at a cash table."""
    if not table.is_tournament:
        return {"tournament": None, "level": None}
    hooks = tournament_hooks.registered()
    level = None
    if hooks is not None:
        assert table.tournament_id is not None
        level = asdict(hooks.level_of(table.tournament_id))
    return {
        "tournament": {"id": table.tournament_id, "table_number": table.tournament_table},
        "level": level,
    }


def view_at(*, table_id: int, viewer_id: int | None, version: int) -> dict[str, Any] | None:
    """The viewer's view at ``version`` without the database, from what the command that
    committed that version in THIS process published (``poker.published``); None when
    this process did not commit it (then read ``table_view``)."""
    basis = published(table_id)
    if basis is None or basis.version != version:
        return None
    you = None
    row = next((r for r in basis.public["seats"] if r["user_id"] == viewer_id), None)
    if row is not None:
        index = basis.player_ids.index(viewer_id) if viewer_id in basis.player_ids else None
        you = private_part(row["seat"], row["state"], basis.state, index)
    return {**basis.public, "you": you}


def hand_detail(*, hand_id: int, viewer_id: int | None, full: bool = False) -> dict[str, Any]:
    """A hand's events and summary as ``viewer_id`` may see them (``full`` for staff), and
    the same hand in words (``readable``: see ``handhistory.readable``).

    Visibility is decided once, by ``HandRecord.seen_by`` (the live table's rule): the
    events and the readable part are both built from what it returns.
    """
    hand = Hand.objects.select_related("table").filter(pk=hand_id).first()
    if hand is None or not may_read_hand(viewer_id, hand.player_ids, staff=full):
        raise NotFound(f"No hand {hand_id} in your history.", code="hand_not_found", hand=hand_id)
    rows = stream_events(hand.stream)
    record = hand_record(hand, [event_from_dict(r.payload) for r in rows])
    viewer = STAFF if full else Viewer(user_id=viewer_id)
    seen = record.seen_by(viewer)
    out = [
        {"seq": row.seq, "recorded_at": row.recorded_at.isoformat(), **on_the_wire(e, record.seats)}
        for row, e in zip(rows, seen, strict=True)
    ]
    summary = HandSummary.objects.filter(hand=hand).values().first()
    if summary is not None:
        summary["players"] = summary_players(summary["players"])
    return {
        "id": hand.pk,
        "table": hand.table_id,
        "number": hand.number,
        "seats": hand.seat_numbers,
        "started_at": hand.started_at.isoformat(),
        "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
        "events": out,
        "summary": summary,
        "readable": readable_hand(record, viewer),
    }


def hands_of(
    *,
    player_id: int,
    table_id: int | None = None,
    since: date | None = None,
    until: date | None = None,
    result: str | None = None,
) -> QuerySet[HandSummary]:
    """The player's finished hands, newest first (a queryset of HandSummary), optionally
    at one table, ended between two days (UTC, both included), won (``result="won"``:
    net > 0) or lost (``"lost"``: net < 0)."""
    # Every filter is on the player's own results, which the (player, -ended_at) index
    # serves; days are UTC midnights so that index is usable for them too.
    mine = PlayerHandResult.objects.filter(player_id=player_id)
    if result == "won":
        mine = mine.filter(net__gt=0)
    elif result == "lost":
        mine = mine.filter(net__lt=0)
    if table_id is not None:
        mine = mine.filter(table_id=table_id)
    if since is not None:
        mine = mine.filter(ended_at__gte=datetime.combine(since, time.min, tzinfo=UTC))
    if until is not None:
        next_day = until + timedelta(days=1)
        mine = mine.filter(ended_at__lt=datetime.combine(next_day, time.min, tzinfo=UTC))
    hands = HandSummary.objects.filter(hand_id__in=mine.values("hand_id"))
    return hands.order_by("-ended_at", "-hand_id")


def tables_played(*, player_id: int) -> list[dict[str, Any]]:
    """The tables ``player_id`` has finished hands at (id and name), for a filter."""
    ids = PlayerHandResult.objects.filter(player_id=player_id).values("table_id")
    rows = Table.objects.filter(pk__in=ids).order_by("name", "pk").values_list("id", "name")
    return [{"id": pk, "name": name} for pk, name in rows]


def hand_rows(*, summaries: Sequence[HandSummary], player_id: int) -> list[dict[str, Any]]:
    """One page of ``player_id``'s hands for their list: each summary with the table's name
    and ``you``: their seat, position, cards (theirs, seen through ``HandRecord.seen_by``),
    stacks and result. Four queries for the page, whatever its length."""
    ids = [s.hand_id for s in summaries]
    records = {r.hand_id: r for r in hand_records(ids)}
    results = {
        r.hand_id: r for r in PlayerHandResult.objects.filter(hand_id__in=ids, player_id=player_id)
    }
    viewer = Viewer(user_id=player_id)
    rows = []
    for s in summaries:
        record, result = records[s.hand_id], results[s.hand_id]
        me = record.player_index(viewer)
        assert me is not None
        dealt = next(
            e.cards
            for e in record.seen_by(viewer)
            if isinstance(e, HoleCardsDealt) and e.player == me
        )
        rows.append(
            {
                "hand": s.hand_id,
                "table": s.table_id,
                "table_name": record.table_name,
                "number": s.number,
                "variant": s.variant,
                "currency": s.currency,
                "stakes": s.stakes,
                "players": summary_players(s.players),
                "board": s.board,
                "pots": s.pots,
                "total_pot": s.total_pot,
                "rake": s.rake,
                "shown": s.shown,
                "started_at": s.started_at,
                "ended_at": s.ended_at,
                "you": {
                    "seat": result.seat,
                    "position": position_labels(len(record.seats))[me],
                    "cards": format_cards(dealt),
                    "showed": bool(result.showed),
                    "starting_stack": result.starting_stack,
                    "final_stack": result.final_stack,
                    "net": result.net,
                    "won": result.won,
                },
            }
        )
    return rows


#: A client further behind than this gets a fresh snapshot instead of the missed updates.
RESYNC_MAX_UPDATES = 200


def updates_since(*, table_id: int, from_version: int) -> list[dict[str, Any]] | None:
    """The public updates after ``from_version`` in order, or None when they are not all
    kept (too far behind, or pruned): the caller then sends a snapshot.

    Reads only the update log, in one query, and accepts it when the versions run on
    without a gap from ``from_version + 1``: a commit landing meanwhile just adds a row.
    """
    from poker.models import TableUpdate

    if not Table.objects.filter(pk=table_id).exists():
        raise NotFound(f"No table {table_id}.", code="table_not_found", table=table_id)
    rows = list(
        TableUpdate.objects.filter(table_id=table_id, version__gt=from_version)
        .order_by("version")
        .values_list("version", "payload")[: RESYNC_MAX_UPDATES + 1]
    )
    if len(rows) > RESYNC_MAX_UPDATES:
        return None
    if any(version != from_version + 1 + i for i, (version, _) in enumerate(rows)):
        return None
    return read_updates([payload for _, payload in rows])


def play_sessions(*, user_id: int) -> list[dict[str, Any]]:
    """The player's current play session per table currency (their account's, read through
    ``wallet.selectors.PLAY``).

    A session in a currency runs while the player holds a seat at a table in that
    currency: it started when they took the earliest of the seats they still hold
    (``Seat.joined_at``), and its net is the sum of their results in the hands that ended
    since then at tables in that currency. Not seated in a currency: no session in it.
    """
    now = timezone.now()
    started = (
        Seat.objects.filter(player_id=user_id)
        .values("table__currency")
        .annotate(started_at=Min("joined_at"))
        .order_by("table__currency")
    )
    sessions = []
    for row in started:
        currency, started_at = row["table__currency"], row["started_at"]
        net = PlayerHandResult.objects.filter(
            player_id=user_id, ended_at__gte=started_at, table__currency=currency
        ).aggregate(total=Sum("net"))["total"]
        sessions.append(
            {
                "currency": currency,
                "started_at": started_at,
                "minutes_played": int((now - started_at).total_seconds() // 60),
                "net": int(net or 0),
            }
        )
    return sessions
