"""The director: starts a sit-and-go, tells its tables the level, places the busted, pays
the prizes when one player is left (issue 29, the first slice of play).

**Lock order.** A tournament hand's end reaches :func:`hand_finished` inside the poker
command's transaction, which holds the table's lock; it then takes the tournament's row
lock. So the only order anywhere is table -> tournament: no service holding a
tournament's lock runs a table command (:func:`tournament_start` commits its tournament
transaction before it opens tables and seats players, each in the table command's own
transaction).

**Start.** A sit-and-go starts after the registration that fills it commits
(``transaction.on_commit`` in ``tournament_register``): the registration is a durable
transaction and the table commands run their own, so they cannot run inside it, and a
start that fails leaves the registration paid and recorded. The start is idempotent: its
tables and seats are commands under keys derived from the tournament, the draw is kept
on the row, so the sweeper (``tournaments.start_due``, beat) finishes a start a crash
cut short and starts a full sit-and-go whose start never ran.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from handhistory.store import SYSTEM
from ledger.models import AccountKind
from ledger.posting import TransferRequest
from ledger.services import ledger_post_transfers_in_transaction
from poker.commands.tournament import (
    table_move_out,
    table_seat_tournament_player,
    tournament_table_create,
)
from poker.models import Table
from poker.tournament_hooks import Level
from tournaments.errors import TournamentUnsupported
from tournaments.events import PlayerBusted, PrizePaid, TournamentFinished, TournamentStarted
from tournaments.models import Entry, Tournament
from tournaments.rules.balance import seat_draw
from tournaments.rules.payouts import (
    Bust,
    Placement,
    PrizePool,
    places_from_busts,
    prize_amounts,
    prize_pool,
    prizes_for_placements,
)
from tournaments.selectors import projected_payouts, tournament_clock
from tournaments.services import _append, _locked, tournament_accounts
from wallet.services import derived_id, house_account, player_account

LIVE = Q(status=Entry.Status.REGISTERED)


# --- the clock -------------------------------------------------------------------------


def level_of(tournament_id: int) -> Level:
    """The hook ``poker`` reads at every hand start: the tournament's current level."""
    level = tournament_clock(Tournament.objects.get(pk=tournament_id)).level
    return Level(
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        big_blind_ante=level.big_blind_ante,
    )


# --- the start -------------------------------------------------------------------------


def _full_sit_and_go(tournament: Tournament) -> bool:
    return (
        tournament.status == Tournament.Status.REGISTERING
        and tournament.kind == Tournament.Kind.SIT_AND_GO
        and tournament.entries.filter(LIVE).count() >= tournament.max_players
    )


def _check_supported(tournament: Tournament) -> None:
    """Bounties are not played yet: refused before anything moves (the registrations stay
    paid; staff cancel with full refunds)."""
    if tournament.bounty:
        raise TournamentUnsupported(
            f"Tournament {tournament.pk}: bounties ({tournament.bounty} per entry) are not "
            "played yet; it does not start.",
            tournament=tournament.pk,
            bounty=tournament.bounty,
        )


def _key(tournament: Tournament, *parts: object) -> str:
    return "-".join(map(str, ("tournament", tournament.pk, *parts)))


def tournament_start(*, tournament_id: int) -> Tournament:
    """Starts a full sit-and-go: one table per ``seats_per_table`` players, the players
    drawn onto seats at random (``random.SystemRandom``, recorded in
    ``TournamentStarted``), each seated with the starting stack; the last seat of each
    table deals its first hand. Does nothing to a tournament not due (not full, started
    and playing, over); refused (``tournament_unsupported``) for a bounty or an overlay."""
    tournament = Tournament.objects.get(pk=tournament_id)
    if _full_sit_and_go(tournament):
        _check_supported(tournament)
        count = -(-tournament.max_players // tournament.seats_per_table)
        tables = [
            tournament_table_create(
                tournament_id=tournament.pk,
                table_number=number,
                name=f"{tournament.name} #{number}",
                variant=tournament.variant,
                max_seats=tournament.seats_per_table,
                action_seconds=tournament.action_seconds,
                key=_key(tournament, "table", number),
            )
            for number in range(1, count + 1)
        ]
        with transaction.atomic(durable=True):
            tournament = _locked(tournament_id)
            if _full_sit_and_go(tournament):
                _draw(tournament, [t.pk for t in tables])
    elif tournament.status != Tournament.Status.RUNNING or tournament.hands_played:
        return tournament
    _seat_drawn(tournament)
    return tournament


def _draw(tournament: Tournament, table_ids: Sequence[int]) -> None:
    """Under the tournament's lock: the seat draw, recorded, and the status ``running``."""
    live = tournament.entries.filter(LIVE)
    players = list(live.order_by("id").values_list("player_id", flat=True))
    field = seat_draw(
        players=players, seats_per_table=tournament.seats_per_table, rng=random.SystemRandom()
    )
    tournament.draw = [
        {
            "number": t.number,
            "table": table_ids[t.number - 1],
            "seats": {str(seat): player for seat, player in sorted(t.seats.items())},
        }
        for t in field.tables
    ]
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["draw", "status", "started_at"])
    live.update(chips=tournament.starting_stack)
    started = TournamentStarted(tables=tournament.draw, starting_stack=tournament.starting_stack)
    _append(tournament, [started], SYSTEM)


def _seat_drawn(tournament: Tournament) -> None:
    """Seats the draw (each seat a command under its own key: a retry repeats nothing)."""
    for table in tournament.draw or []:
        seats = sorted(table["seats"].items(), key=lambda item: int(item[0]))
        for i, (seat, player) in enumerate(seats):
            table_seat_tournament_player(
                table_id=table["table"],
                player_id=player,
                seat=int(seat),
                chips=tournament.starting_stack,
                key=_key(tournament, "seat", player),
                actor=SYSTEM,
                deal=i == len(seats) - 1,
            )


def tournaments_start_due() -> int:
    """The sweeper's pass: starts every full sit-and-go whose start never ran or was cut
    short (a crash after the registration's commit). Returns how many it looked at
    (bounty and overlay ones, refused, wait for staff)."""
    due = Tournament.objects.filter(kind=Tournament.Kind.SIT_AND_GO).filter(
        Q(status=Tournament.Status.REGISTERING)
        | Q(status=Tournament.Status.RUNNING, hands_played=0)
    )
    count = 0
    for tournament_id in due.values_list("pk", flat=True):
        try:
            tournament_start(tournament_id=tournament_id)
        except TournamentUnsupported:
            continue  # waits for staff to cancel it
        count += 1
    return count


# --- hands, busts, the finish ----------------------------------------------------------


def hand_finished(
    table_id: int, hand_id: int, stacks: Mapping[int, int], busted: Sequence[int]
) -> None:
    """The hook ``poker`` calls at each tournament hand's end, in the command's transaction
    (holding the table's lock; the tournament's is taken after it). Counts the hand for
    the clock, keeps each player's chips, places the busted (of several in one hand, the
    larger starting stack places higher, equal stacks share: ``places_from_busts``; the
    starting stack of a hand is the chips the player ended their previous hand with,
    kept on the entry), and when one player is left, finishes the tournament."""
    tournament_id = Table.objects.values_list("tournament_id", flat=True).get(pk=table_id)
    assert tournament_id is not None
    tournament = _locked(tournament_id)
    tournament.hands_played += 1
    tournament.save(update_fields=["hands_played"])
    entries = {e.player_id: e for e in tournament.entries.filter(LIVE)}
    left = sum(1 for e in entries.values() if e.place is None)
    busts = [Bust(player=p, starting_stack=entries[p].chips or 0) for p in busted]
    for player, chips in stacks.items():
        entries[player].chips = chips
    events: list[Any] = []
    if busts:
        for placed in places_from_busts(players_left=left, busts=busts):
            entry = entries[placed.player]
            entry.place, entry.last_place = placed.first_place, placed.last_place
            events.append(
                PlayerBusted(
                    user_id=placed.player,
                    place=placed.first_place,
                    last_place=placed.last_place,
                    hand=hand_id,
                )
            )
    Entry.objects.bulk_update(entries.values(), ["chips", "place", "last_place"])
    _append(tournament, events, SYSTEM)
    if left - len(busts) == 1:
        (winner,) = (e for e in entries.values() if e.place is None)
        _finish(tournament, winner, list(entries.values()), table_id)


def _prizes(tournament: Tournament, entries: Sequence[Entry]) -> tuple[PrizePool, tuple[int, ...]]:
    """(the pool, the prize of each paid place): the structure's percentages (as the
    detail shows them) or the room's default table."""
    pool = prize_pool(
        guarantee=tournament.guarantee,
        buy_ins=sum(e.buy_in for e in entries),
        rebuys=0,
        add_ons=0,
        bounties=sum(e.bounty for e in entries),
    )
    if tournament.payouts:
        return pool, tuple(projected_payouts(pool.amount, tournament.payouts).values())
    return pool, prize_amounts(pool=pool.amount, entries=len(entries), percents=None)


def _overlay(tournament: Tournament, overlay: int, pool_account_id: int) -> list[TransferRequest]:
    """The house's part of a guarantee, paid into the pool from the house adjustments
    account (the house account that may go negative: an expense of the house), once."""
    if not overlay:
        return []
    house = house_account(kind=AccountKind.ADJUSTMENT, currency=tournament.currency)
    return [
        TransferRequest(
            id=derived_id("tournament", tournament.pk, "overlay"),
            debit_account_id=house.pk,
            credit_account_id=pool_account_id,
            amount=overlay,
            currency=tournament.currency,
            code="tournament_overlay",
            reference=tournament.owner_ref,
            metadata={"guarantee": tournament.guarantee},
        )
    ]


def _finish(tournament: Tournament, winner: Entry, entries: Sequence[Entry], table_id: int) -> None:
    """The winner takes place 1; the house pays a guarantee's overlay into the pool; every
    placed player is paid their prize from the pool (transfer ids derived from (tournament, place, player): a retry never pays twice),
    which leaves the pool at zero; the tournament is finished and, after the commit, the
    winner is moved off the last table, which is left empty."""
    winner.place = winner.last_place = 1
    winner.save(update_fields=["place", "last_place"])
    pool, amounts = _prizes(tournament, entries)
    ranked = sorted(entries, key=lambda e: (e.place or 0, e.pk))
    won = prizes_for_placements(
        prizes=amounts,
        placements=[
            Placement(player=e.player_id, first_place=e.place or 0, last_place=e.last_place or 0)
            for e in ranked
        ],
    )
    pool_account = tournament_accounts(tournament)["pool"]
    transfers, events = _overlay(tournament, pool.overlay, pool_account.pk), []
    for entry in ranked:
        entry.prize = won.get(entry.player_id, 0)
        if not entry.prize:
            continue
        transfers.append(
            TransferRequest(
                id=derived_id("tournament", tournament.pk, "prize", entry.place, entry.player_id),
                debit_account_id=pool_account.pk,
                credit_account_id=player_account(
                    user_id=entry.player_id, currency=tournament.currency
                ).pk,
                amount=entry.prize,
                currency=tournament.currency,
                code="tournament_prize",
                reference=tournament.owner_ref,
                metadata={"user_id": entry.player_id, "place": entry.place},
            )
        )
        events.append(
            PrizePaid(user_id=entry.player_id, place=entry.place or 0, amount=entry.prize)
        )
    if transfers:
        ledger_post_transfers_in_transaction(transfers=transfers)
    now = timezone.now()
    for entry in ranked:
        entry.ended_at = now
    Entry.objects.bulk_update(ranked, ["prize", "ended_at"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    _append(
        tournament,
        [*events, TournamentFinished(winner=winner.player_id, prize_pool=pool.amount)],
        SYSTEM,
    )
    transaction.on_commit(
        lambda: table_move_out(
            table_id=table_id,
            player_id=winner.player_id,
            key=_key(tournament, "winner", winner.player_id),
            actor=SYSTEM,
        ),
        robust=True,
    )
