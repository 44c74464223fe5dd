"""The commands a tournament's director runs on its tables: open a tournament table, seat a
player there with their chips, take a player off with their chips (a move, a table
broken); and the refusal of the cash-only commands there.

Tournament chips are not money: these commands move no money and touch no ledger
account; a seat's chips are its row's (``Seat.chips``). The level the tables play is the
tournament's (``poker.tournament_hooks``), read when a hand starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from core.errors import InvalidRequest
from core.idempotency import same_request
from handhistory.store import Actor
from poker import table_events
from poker.commands import inputs
from poker.commands.runner import TableError, request_hash, run_command
from poker.commands.seating import table_create_recorded
from poker.dealer import in_current_hand, level_of, maybe_start_hand, remove_seat, seat_of
from poker.models import Seat, Table, TableCommand
from poker.working_set import Ctx, table_event, who


def tournament_table_create(
    *,
    tournament_id: int,
    table_number: int,
    name: str,
    variant: str = "NT",
    max_seats: int = 9,
    action_seconds: int = 30,
    key: str | None = None,
) -> Table:
    """Opens table ``table_number`` of tournament ``tournament_id``: no buy-in, no rake, in
    chips. Its row keeps the blinds of the level it opened at (for the lobby's label); the
    hands read the tournament's level (``poker.tournament_hooks``), so the director must be
    registered. Once per ``key``, as ``table_create``."""
    inputs.client_key(player_id=None, key=key)
    for label, value in (("tournament_id", tournament_id), ("table_number", table_number)):
        if type(value) is not int or value < 1:
            raise InvalidRequest(f"{label} must be a positive integer.", code="invalid_" + label)
    # The variant and the seats are the caller's to check; the stakes are fixed here.
    inputs.table_settings(
        variant=variant,
        small_blind=0,
        big_blind=1,
        min_buy_in=1,
        max_buy_in=1,
        max_seats=max_seats,
        ante=0,
        rake_bps=0,
        rake_cap=0,
        button_blind=0,
    )
    draft = Table(tournament_id=tournament_id, tournament_table=table_number)
    level = level_of(draft)
    fields = dict(
        name=name,
        variant=variant,
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        big_blind_ante=level.big_blind_ante,
        max_seats=max_seats,
        min_buy_in=0,
        max_buy_in=0,
        action_seconds=action_seconds,
        tournament_id=tournament_id,
        tournament_table=table_number,
    )
    return table_create_recorded(fields, key=key, player_id=None)


def _not_seated_elsewhere(ctx: Ctx, player_id: int) -> None:
    """A player holds one seat in a tournament: refused while seated at another of its
    tables (the director moves them out first)."""
    elsewhere = (
        Seat.objects.filter(player_id=player_id, table__tournament_id=ctx.table.tournament_id)
        .exclude(table_id=ctx.table.pk)
        .values_list("table__tournament_table", flat=True)
        .first()
    )
    if elsewhere is not None:
        raise TableError(
            f"Player {player_id} is seated at table {elsewhere} of tournament "
            f"{ctx.table.tournament_id}: move them out of it first.",
            code="seated_elsewhere",
            table_number=elsewhere,
        )


def _tournament_table(ctx: Ctx) -> None:
    if not ctx.table.is_tournament:
        raise TableError(
            f"Table {ctx.table.pk} is a cash table: players buy in there.",
            code="not_tournament_table",
        )


def _run_keyed(
    *,
    table_id: int,
    key: str,
    command: str,
    request: dict[str, Any],
    actor: Actor,
    body: Callable[[Ctx], dict[str, Any]],
) -> dict[str, Any]:
    """Runs a director's command once per ``key`` (the system's namespace of keys, as a
    table created by the system): its outcome is stored with its effects, under the
    table's lock; the same key again answers it (``replayed``) and changes nothing, with
    another request it is refused (``idempotency_key_reused``)."""
    inputs.client_key(player_id=None, key=key)
    digest = request_hash(command, request)
    replayed: dict[str, Any] = {}

    def keyed(ctx: Ctx) -> dict[str, Any] | None:
        stored = TableCommand.objects.filter(player_id=None, key=key).first()
        if stored is not None:
            same_request(stored.request_hash == digest and stored.table_id == ctx.table.pk, key=key)
            replayed.update(stored.result, replayed=True)
            return None
        # Stored as the runner answers: with the version this command commits.
        outcome = {**body(ctx), "version": ctx.table.version + 1}
        TableCommand.objects.create(
            table_id=ctx.table.pk,
            player_id=None,
            key=key,
            command=command,
            request_hash=digest,
            result=outcome,
        )
        return outcome

    result = run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command=command,
        request=request,
        actor=actor,
        body=keyed,
    )
    return replayed or result


def table_seat_tournament_player(
    *,
    table_id: int,
    player_id: int,
    seat: int,
    chips: int,
    key: str,
    actor: Actor,
    deal: bool = True,
) -> dict[str, Any]:
    """Seats a tournament's player at ``seat`` with ``chips`` (their stack, not money);
    dealt in from the next hand, which starts at once when none runs and two can play --
    unless ``deal`` is False: the director seats a new table's players so, all but the
    last, so that its first hand is dealt to all of them. Refused at a cash table, on a
    taken seat, to a player seated already here or at another table of the tournament."""
    if type(chips) is not int or chips < 1:
        raise InvalidRequest("chips must be a positive integer.", code="invalid_amount")

    def body(ctx: Ctx) -> dict[str, Any]:
        _tournament_table(ctx)
        table = ctx.table
        if type(seat) is not int or not 1 <= seat <= table.max_seats:
            raise InvalidRequest(f"Seat must be 1..{table.max_seats}.", code="invalid_seat")
        seats = ctx.seats()
        if any(s.player_id == player_id for s in seats.values()):
            raise TableError("The player is already seated at this table.", code="already_seated")
        if seat in seats:
            raise TableError(f"Seat {seat} is taken.", code="seat_taken")
        _not_seated_elsewhere(ctx, player_id)
        try:
            with transaction.atomic():
                sat = Seat.objects.create(
                    table=table,
                    number=seat,
                    player_id=player_id,
                    chips=chips,
                    tournament_id=table.tournament_id,
                )
        except IntegrityError:
            # Another table of the tournament seated them since the check (the tables'
            # locks are their own): the seat_one_per_tournament index decides.
            _not_seated_elsewhere(ctx, player_id)
            raise
        ctx.seat_map[seat] = sat
        table_event(ctx, table_events.PlayerSeatedWithChips(seat=seat, **who(sat), chips=chips))
        if deal:
            maybe_start_hand(ctx)
        return {"seat": seat, "chips": chips}

    return _run_keyed(
        table_id=table_id,
        key=key,
        command="t_seat",
        request={"player_id": player_id, "seat": seat, "chips": chips, "deal": deal},
        actor=actor,
        body=body,
    )


def table_move_out(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Takes a tournament's player off the table with their chips (returned as ``chips``),
    for the director to seat them elsewhere. Refused while they are in the running hand
    (``in_hand``): moves happen between hands, or to a player not dealt in."""

    def body(ctx: Ctx) -> dict[str, Any]:
        _tournament_table(ctx)
        seat = seat_of(ctx, player_id)
        if in_current_hand(ctx, player_id) is not None:
            raise TableError(
                f"Seat {seat.number} is in the running hand: move it out when it ends.",
                code="in_hand",
            )
        chips = seat.stack
        table_event(ctx, table_events.PlayerMovedOut(seat=seat.number, **who(seat), chips=chips))
        remove_seat(ctx, seat)
        return {"seat": seat.number, "chips": chips}

    return _run_keyed(
        table_id=table_id,
        key=key,
        command="t_move_out",
        request={"player_id": player_id},
        actor=actor,
        body=body,
    )


def table_deal(*, table_id: int, actor: Actor) -> dict[str, Any]:
    """Deals the next hand at a tournament table that has none running: the director
    wakes a table it held (``tournament_hooks.may_deal``) once it may deal. Does nothing
    (``noop``) while a hand runs or the pause after the last one lasts, when fewer than
    two can play, or while the tournament still holds the table."""

    def body(ctx: Ctx) -> dict[str, Any] | None:
        _tournament_table(ctx)
        played = ctx.table.hands_played
        maybe_start_hand(ctx)
        return {"dealt": True} if ctx.table.hands_played > played else None

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="t_deal",
        request={},
        actor=actor,
        body=body,
    )
