"""Projections of finished hands, computed from the events alone.

``project_hand`` runs in the transaction that ends a hand; ``rebuild_all`` recomputes every
row from the event store (``manage.py rebuild_projections``) and gives identical rows,
because both go through :func:`summarize`, a pure function of the events and the hand's
fixed metadata.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.db import json_param, on_postgres, run_prepared
from handhistory.models import Event, HandSummary, PlayerHandResult
from poker.engine.cards import format_cards
from poker.engine.events import CardsShown, PotAwarded, event_from_dict
from poker.engine.state import HandState
from poker.engine.transitions import replay


def summarize(
    hand: Any, payloads: list[dict[str, Any]], state: HandState | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(summary fields, per-player result fields) for a finished hand; ``state``, when
    the caller holds it, is the replay of ``payloads`` (the engine is deterministic)."""
    events = [event_from_dict(p) for p in payloads]
    if state is None:
        state = replay(events)
    seats = list(hand.seat_numbers)
    players = list(hand.player_ids)
    table = hand.table
    pots = [
        {
            "pot": e.pot,
            "winners": [seats[w] for w in e.winners],
            "amounts": list(e.amounts),
            "hand": e.hand,
        }
        for e in events
        if isinstance(e, PotAwarded)
    ]
    shown = {
        str(seats[e.player]): format_cards(e.cards) for e in events if isinstance(e, CardsShown)
    }
    starting = state.config.starting_stacks
    summary = {
        "table_id": table.pk,
        "number": hand.number,
        "variant": state.game.code,
        "currency": table.currency,
        "stakes": {
            "small_blind": table.small_blind,
            "big_blind": table.big_blind,
            "ante": table.ante,
        },
        "players": [
            {"seat": seats[i], "user_id": players[i], "starting_stack": starting[i]}
            for i in range(len(seats))
        ],
        "board": format_cards(state.board),
        "pots": pots,
        "total_pot": state.total_pot,
        "rake": state.rake,
        "shown": shown,
        "started_at": hand.started_at,
        "ended_at": hand.ended_at,
    }
    results = [
        {
            "player_id": players[i],
            "table_id": table.pk,
            "seat": seats[i],
            "starting_stack": starting[i],
            "final_stack": state.stacks[i],
            "net": state.stacks[i] - starting[i],
            "won": state.won[i],
            "showed": shown.get(str(seats[i]), ""),
            "ended_at": hand.ended_at,
        }
        for i in range(len(seats))
    ]
    return summary, results


def summary_players(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``HandSummary.players`` as the API shows it: summaries projected before the wire
    spoke of ``user_id`` (docs/protocol.md) stored it as ``player_id``."""
    return [
        {("user_id" if k == "player_id" else k): v for k, v in player.items()} for player in players
    ]


def stored_payloads(hand: Any) -> list[dict[str, Any]]:
    """The payloads of ``hand``'s events as stored, in order."""
    return list(
        Event.objects.filter(stream=hand.stream).order_by("seq").values_list("payload", flat=True)
    )


def project_hand(
    hand: Any, *, payloads: list[dict[str, Any]] | None = None, state: HandState | None = None
) -> None:
    """Writes the projections of a just-finished hand, which has none yet (inside the
    caller's transaction; ``rebuild_all`` clears them first). The table service passes
    the hand's event payloads and final state it holds; otherwise they are read back."""
    if payloads is None:
        payloads = stored_payloads(hand)
    summary, results = summarize(hand, payloads, state)
    if not on_postgres():
        HandSummary.objects.create(hand=hand, **summary)
        PlayerHandResult.objects.bulk_create([PlayerHandResult(hand=hand, **r) for r in results])
        return
    rows = {
        "summary": {"hand_id": hand.pk, **summary},
        "results": [{"hand_id": hand.pk, **r} for r in results],
    }
    run_prepared(_INSERT_SQL, {k: json_param(v) for k, v in rows.items()})


def _insert_sql() -> str:
    """Both projections in one statement (the hot path's hand end), rows given as JSON."""
    summary, result = HandSummary._meta, PlayerHandResult._meta
    s_cols = ", ".join(f.column for f in summary.concrete_fields)
    r_cols = ", ".join(f.column for f in result.concrete_fields if not f.primary_key)
    return f"""
WITH summary AS (
    INSERT INTO {summary.db_table} ({s_cols})
    SELECT {s_cols} FROM jsonb_populate_record(NULL::{summary.db_table}, %(summary)s::jsonb)
)
INSERT INTO {result.db_table} ({r_cols})
SELECT {r_cols} FROM jsonb_populate_recordset(NULL::{result.db_table}, %(results)s::jsonb)
"""  # noqa: S608 - only the models' own table and column names are interpolated


_INSERT_SQL = _insert_sql()


def rebuild_all() -> int:
    """Recomputes every projection from the events; returns the number of hands."""
    from handhistory.models import Hand

    count = 0
    with transaction.atomic():
        PlayerHandResult.objects.all().delete()
        HandSummary.objects.all().delete()
        for hand in (
            Hand.objects.filter(ended_at__isnull=False).select_related("table").order_by("pk")
        ):
            project_hand(hand)
            count += 1
    return count
