"""Reads: the lobby, a player's private view of a table, and hand histories with privacy.

Privacy rule, applied here and only here: a viewer sees their own hole cards; another
player's hole cards only once that player showed them (a ``CardsShown`` event); staff with
``full=True`` see everything. The deck seed stays secret until the hand has ended.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Avg, Count

from core.errors import NotFound
from handhistory.models import HandSummary
from handhistory.projections import summary_players
from handhistory.store import stream_events
from poker import table_io
from poker.engine.betting import legal_actions
from poker.engine.cards import format_cards
from poker.engine.events import event_from_dict
from poker.engine.state import HandState
from poker.fairness import next_deck_commitment
from poker.hands import hand_state
from poker.models import Hand, Seat, Table
from poker.privacy import seed_may_be_public, shown_players, viewable
from poker.table_events import read_updates


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
        "max_seats": table.max_seats,
        "min_buy_in": table.min_buy_in,
        "max_buy_in": table.max_buy_in,
        "rake_bps": table.rake_bps,
        "rake_cap": table.rake_cap,
        "action_seconds": table.action_seconds,
        "status": table.status,
    }


def lobby() -> list[dict[str, Any]]:
    """Every table that is not closed, with seats taken and the average pot."""
    tables = (
        Table.objects.exclude(status=Table.Status.CLOSED)
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
            "stack": seat.stake_account.balance,
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
                cards=format_cards(state.hole_cards[i]) if state.shown[i] else None,
            )
        seat_rows.append(row)
        if seat.player_id == viewer_id:
            you = _you(seat.number, seat.state, state, i)
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


def _you(seat: int, seat_state: str, state: HandState | None, index: int | None) -> dict[str, Any]:
    """The private part of a view: the viewer's seat, own hole cards and legal actions."""
    you: dict[str, Any] = {"seat": seat, "state": seat_state, "hole_cards": None,
                           "legal_actions": None}  # fmt: skip
    if state is not None and index is not None:
        you["hole_cards"] = format_cards(state.hole_cards_of(index))
        legal = legal_actions(state)
        if legal is not None and legal.actor == index:
            you["legal_actions"] = {
                "actions": list(legal.actions),
                "call_amount": legal.call_amount,
                "min_to": legal.min_to,
                "max_to": legal.max_to,
            }
    return you


def view_at(*, table_id: int, viewer_id: int | None, version: int) -> dict[str, Any] | None:
    """The viewer's view at ``version`` without the database, from what the command that
    committed that version in THIS process published (``table_io.publish``); None when
    this process did not commit it (then read ``table_view``)."""
    basis = table_io.published(table_id)
    if basis is None or basis.version != version:
        return None
    you = None
    row = next((r for r in basis.public["seats"] if r["user_id"] == viewer_id), None)
    if row is not None:
        index = basis.player_ids.index(viewer_id) if viewer_id in basis.player_ids else None
        you = _you(row["seat"], row["state"], basis.state, index)
    return {**basis.public, "you": you}


def hand_detail(*, hand_id: int, viewer_id: int | None, full: bool = False) -> dict[str, Any]:
    """A hand's events and summary as ``viewer_id`` may see them (``full`` for staff)."""
    hand = Hand.objects.select_related("table").filter(pk=hand_id).first()
    if hand is None or not (full or viewer_id in hand.player_ids):
        raise NotFound(f"No hand {hand_id} in your history.", code="hand_not_found", hand=hand_id)
    rows = stream_events(hand.stream)
    events = [event_from_dict(r.payload) for r in rows]
    shown = shown_players(events)
    reveal = full or seed_may_be_public(events)
    me = hand.player_ids.index(viewer_id) if viewer_id in hand.player_ids else None
    out = []
    for row, event in zip(rows, events, strict=True):
        data = (
            viewable(event, hand.seat_numbers, viewer=me, shown=shown, reveal_seed=reveal)
            if not full
            else viewable(
                event, hand.seat_numbers, shown=range(len(hand.seat_numbers)), reveal_seed=True
            )
        )
        out.append({"seq": row.seq, "recorded_at": row.recorded_at.isoformat(), **data})
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
    }


def hands_of(*, player_id: int) -> Any:
    """The player's finished hands, newest first (a queryset of HandSummary)."""
    return HandSummary.objects.filter(hand__results__player_id=player_id).order_by("-ended_at")


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
