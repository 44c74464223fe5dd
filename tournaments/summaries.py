"""What a tournament tells hand-history tools: the facts its hands' exports print (read
through ``handhistory.exports.tournaments``, which ``apps.py`` fills with
:func:`tournament_hand_facts`) and, once it has finished, its Open Tournament Summary.

The Open Tournament Summary (OTS, ts-specs.handhistory.org, 1.1.5) is the Open Hand
History's sister format: one ``{"ots": {...}}`` JSON document per tournament with its
identity, buy-in, fee, bounty, start and end, speed, prize pool and every entrant's
finish. ``schema/ots.schema.json`` is the JSON Schema it is validated against in the
tests (the specification publishes none). Its money is in the tournament currency's
units, as in our OHH (``buyin_amount`` the prize part, ``bounty_fee_amount`` the bounty,
``fee_amount`` the fee: a player paid their sum). It says only what the tournament's
public detail shows (names, places, prizes); ``hero_player_name`` is the reader's own
name, only when the reader played.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from handhistory.exports.ohh import amount_writer, tournament_info, utc
from handhistory.exports.phh import VENUE
from handhistory.exports.tournaments import TournamentFacts
from tournaments.errors import TournamentNotFinished, TournamentNotFound
from tournaments.models import Entry, Tournament

SPEC_VERSION = "1.1.5"
#: The version of this module's mapping of our tournaments to OTS; bump it when it changes.
INTERNAL_VERSION = "1.0.0"
SCHEMA_PATH = Path(__file__).parent / "schema" / "ots.schema.json"


def _facts(tournament: Tournament) -> TournamentFacts:
    assert tournament.started_at is not None
    return TournamentFacts(
        tournament_id=tournament.pk,
        name=tournament.name,
        sit_and_go=tournament.kind == Tournament.Kind.SIT_AND_GO,
        multi_table=tournament.max_players > tournament.seats_per_table,
        currency=tournament.currency,
        buy_in=tournament.buy_in,
        fee=tournament.fee,
        bounty=tournament.bounty,
        starting_stack=tournament.starting_stack,
        started_at=tournament.started_at,
        big_blinds=tuple(level["big_blind"] for level in tournament.levels),
        level_minutes=tournament.levels[0].get("minutes"),
    )


def tournament_hand_facts(tournament_ids: Collection[int]) -> dict[int, TournamentFacts]:
    """The facts of the started tournaments among ``tournament_ids`` (one query): the
    reader of ``handhistory.exports.tournaments``. A tournament deals no hand before its
    start, so every tournament hand's tournament is among them."""
    started = Tournament.objects.filter(pk__in=tournament_ids, started_at__isnull=False)
    return {t.pk: _facts(t) for t in started}


def tournament_summary(*, tournament_id: int, viewer_id: int | None) -> dict[str, Any]:
    """The finished tournament's Open Tournament Summary, ``{"ots": {...}}``, as
    ``viewer_id`` reads it (their name as the hero when they played). Refused: no such
    tournament (``tournament_not_found``), not finished (``tournament_not_finished``: a
    summary lists every finish)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(f"No tournament {tournament_id}.", tournament=tournament_id)
    if tournament.status != Tournament.Status.FINISHED:
        raise TournamentNotFinished(
            f"Tournament {tournament_id} is {tournament.status}: its summary is written "
            "once it has finished.",
            tournament=tournament_id,
            status=tournament.status,
        )
    assert tournament.finished_at is not None
    entries = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
        .select_related("player")
        .order_by("place", "pk")
    )
    money = amount_writer(tournament.currency)
    info = tournament_info(_facts(tournament))
    hero = next((e.player.get_username() for e in entries if e.player_id == viewer_id), None)
    summary: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": VENUE,
        "network_name": VENUE,
        "internal_version": INTERNAL_VERSION,
        "tournament_number": info["tournament_number"],
        "tournament_name": info["name"],
        "start_date_utc": info["start_date_utc"],
        "end_date_utc": utc(tournament.finished_at),
        **{k: info[k] for k in _FROM_INFO},
        # Every prize was paid from the pool, which ends at zero: their sum is the pool.
        "prize_pool": money(sum(e.prize or 0 for e in entries)),
    }
    if hero is not None:
        summary["hero_player_name"] = hero
    summary |= {
        "player_count": len(entries),
        "tournament_finishes_and_winnings": [
            {
                "player_name": e.player.get_username(),
                "finish_position": e.place,
                "still_playing": False,
                "prize": money(e.prize or 0),
            }
            for e in entries
        ],
    }
    return {"ots": summary}


#: The fields the summary shares with the hands' tournament info.
_FROM_INFO = (
    "currency",
    "buyin_amount",
    "fee_amount",
    "bounty_fee_amount",
    "initial_stack",
    "type",
    "flags",
    "speed",
)
