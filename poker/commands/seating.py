"""Seating commands: create a table, sit, leave, sit out, sit in, top up, and taking a
barred player off the table (a time-out or self-exclusion)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import IntegrityError, transaction

from core.errors import InvalidRequest
from core.idempotency import same_request
from handhistory.store import SYSTEM, Actor
from ledger.posting import check_amount
from poker import money, table_events
from poker.commands import inputs
from poker.commands.runner import TableError, request_hash, run_command
from poker.dealer import (
    cash_out,
    in_current_hand,
    maybe_start_hand,
    progress,
    seat_of,
)
from poker.full_view import full_view_seat_check
from poker.models import Seat, Table, TableCommand
from poker.working_set import Ctx, table_event, who
from wallet.models import Restriction
from wallet.restrictions import restriction_barred_from_tables, restriction_check

log = logging.getLogger(__name__)


def cash_only(ctx: Ctx, what: str) -> None:
    """Refuses a cash-table command (sit, top up, leave, sit out/in, close) at a tournament
    table: there a player is seated, moved and taken off by the tournament, and stays in
    play until busted."""
    if ctx.table.is_tournament:
        raise TableError(
            f"Table {ctx.table.pk} is table {ctx.table.tournament_table} of tournament "
            f"{ctx.table.tournament_id}: {what} is for cash tables; the tournament seats, "
            "moves and removes its players.",
            code="tournament_table",
            tournament=ctx.table.tournament_id,
        )


def table_create(
    *,
    name: str,
    variant: str,
    small_blind: int,
    big_blind: int,
    min_buy_in: int,
    max_buy_in: int,
    max_seats: int = 6,
    ante: int = 0,
    currency: str = "CHIPS",
    rake_bps: int = 0,
    rake_cap: int = 0,
    action_seconds: int = 30,
    big_blind_ante: bool = False,
    button_blind: int = 0,
    key: str | None = None,
    player_id: int | None = None,
) -> Table:
    """Creates a table after checking its stakes make sense. With a ``key`` (the creator's
    idempotency key; ``player_id`` None: the system's), creation is a recorded command
    (``TableCommand`` "create", in the creator's one namespace of keys): the same key
    again returns the same table; with other settings, or a key another command used, it
    is refused (``idempotency_key_reused``)."""
    inputs.client_key(player_id=player_id, key=key)
    inputs.table_settings(
        variant=variant,
        small_blind=small_blind,
        big_blind=big_blind,
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
        max_seats=max_seats,
        ante=ante,
        rake_bps=rake_bps,
        rake_cap=rake_cap,
        button_blind=button_blind,
    )
    fields = dict(
        name=name,
        variant=variant,
        small_blind=small_blind,
        big_blind=big_blind,
        ante=ante,
        max_seats=max_seats,
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
        currency=currency,
        rake_bps=rake_bps,
        rake_cap=rake_cap,
        action_seconds=action_seconds,
        big_blind_ante=big_blind_ante,
        button_blind=button_blind,
    )
    return table_create_recorded(fields, key=key, player_id=player_id)


def table_create_recorded(
    fields: dict[str, Any], *, key: str | None, player_id: int | None
) -> Table:
    """Creates the table of ``fields`` (checked by the caller), once per ``key`` when
    given (see ``table_create``)."""
    if key is None:
        with transaction.atomic(durable=True):
            return Table.objects.create(**fields)
    digest = request_hash("create", fields)
    created = _created(player_id=player_id, key=key, digest=digest)
    if created is not None:
        return created
    try:
        with transaction.atomic(durable=True):
            table = Table.objects.create(**fields)
            TableCommand.objects.create(
                table=table,
                player_id=player_id,
                key=key,
                command="create",
                request_hash=digest,
                result={"table": table.pk},
            )
            return table
    except IntegrityError:
        # Only the command record's unique index can refuse a new table's row: the same
        # key committed meanwhile, and its table is the answer.
        created = _created(player_id=player_id, key=key, digest=digest)
        if created is None:
            raise
        return created


def _created(*, player_id: int | None, key: str, digest: str) -> Table | None:
    """The table a creation stored under ``key`` created (None when there is none); the
    409 when the key was used for other settings or another command."""
    stored = TableCommand.objects.filter(player_id=player_id, key=key).first()
    if stored is None:
        return None
    same_request(stored.command == "create" and stored.request_hash == digest, key=key)
    return Table.objects.get(pk=stored.result["table"])


def table_sit(
    *, table_id: int, player_id: int, buy_in: object, seat: object = None, key: str, actor: Actor
) -> dict[str, Any]:
    """Takes a seat with a buy-in from the player's wallet; may start a hand. Refused to a
    staff member who saw every card of this table lately (403 ``watched_with_every_card``)."""

    def body(ctx: Ctx) -> dict[str, Any]:
        cash_only(ctx, "sitting down with a buy-in")
        table = ctx.table
        if table.status != Table.Status.OPEN:
            raise TableError(f"Table {table.pk} is {table.status}.", code="table_not_open")
        amount = check_amount(buy_in, name="buy_in")
        if not table.min_buy_in <= amount <= table.max_buy_in:
            raise TableError(
                f"Buy-in {amount} is outside {table.min_buy_in}..{table.max_buy_in}.",
                code="buy_in_out_of_range",
                min=table.min_buy_in,
                max=table.max_buy_in,
            )
        seats = ctx.seats()
        if any(s.player_id == player_id for s in seats.values()):
            raise TableError("You are already seated at this table.", code="already_seated")
        # Under the table's lock, as a watch is recorded: staff who saw every card here
        # may not play here (poker.full_view).
        full_view_seat_check(table_id=table.pk, player_id=player_id)
        if seat is None:
            free = [n for n in range(1, table.max_seats + 1) if n not in seats]
            if not free:
                raise TableError("The table is full.", code="table_full")
            number = free[0]
        else:
            if type(seat) is not int or not 1 <= seat <= table.max_seats:
                raise InvalidRequest(f"Seat must be 1..{table.max_seats}.", code="invalid_seat")
            if seat in seats:
                raise TableError(f"Seat {seat} is taken.", code="seat_taken")
            number = seat
        stake = money.seat_stake_account(
            table_id=table.pk, player_id=player_id, currency=table.currency
        )
        money.buy_in(
            table_id=table.pk,
            player_id=player_id,
            amount=amount,
            currency=table.currency,
            key=money.transfer_id("buy-in", table.pk, player_id, key),
        )
        running = table.current_hand_id is not None
        ctx.seat_map[number] = sat = Seat.objects.create(
            table=table,
            number=number,
            player_id=player_id,
            stake_account=stake,
            waiting_for_big_blind=running,
        )
        ctx.balances_stale = True
        table_event(ctx, table_events.PlayerSat(seat=number, **who(sat), buy_in=amount))
        maybe_start_hand(ctx)
        return {"seat": number, "buy_in": amount}

    return run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="sit",
        request={"buy_in": buy_in, "seat": seat},
        actor=actor,
        body=body,
    )


def table_leave(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Leaves now (cash-out), or at the end of the current hand if in it (folding first
    when it is this player's turn)."""

    def body(ctx: Ctx) -> dict[str, Any]:
        cash_only(ctx, "leaving with a cash-out")
        seat = seat_of(ctx, player_id)
        index = in_current_hand(ctx, player_id)
        if index is None:
            return {"left": True, "cashed_out": cash_out(ctx, seat, reason=f"leave:{key}")}
        seat.state = Seat.State.LEAVING
        ctx.seat_changed(seat)
        table_event(ctx, table_events.PlayerLeaving(seat=seat.number, **who(seat)))
        if ctx.state is not None and ctx.state.actor == index:
            progress(ctx)  # folds for them: a hand that ends here cashes them out now
        if ctx.seat_map.get(seat.number) is not seat:
            left = next(
                b["event"]
                for b in ctx.broadcasts
                if b["kind"] == "table"
                and b["event"]["type"] == "PlayerLeft"
                and b["event"]["seat"] == seat.number
            )
            return {"left": True, "cashed_out": left["cashed_out"]}
        return {"left": False, "leaving_after_hand": True}

    return run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="leave",
        request={},
        actor=actor,
        body=body,
    )


def table_restriction_enforce(*, table_id: int, player_id: int) -> dict[str, Any]:
    """Takes a player under a time-out or self-exclusion off the table: cashed out now
    when not in the running hand; in it, they play it out and its end cashes them out
    (``_cash_out_barred``). Does nothing when they are not seated, in the hand, or no
    longer barred, so it may run again safely."""

    def body(ctx: Ctx) -> dict[str, Any] | None:
        seat = ctx.seat_of_player(player_id)
        if seat is None or ctx.table.is_tournament or in_current_hand(ctx, player_id) is not None:
            return None
        if player_id not in restriction_barred_from_tables(user_ids=[player_id]):
            return None
        return {"left": True, "cashed_out": cash_out(ctx, seat, reason="restricted")}

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="restricted",
        request={"player_id": player_id},
        actor=SYSTEM,
        body=body,
    )


def restriction_unseat(*, player_id: int, restriction: Restriction) -> None:
    """Takes the player off every table once they took a time-out or self-exclusion (the
    wallet's ``RESTRICTION_HOOKS``, registered in ``PokerConfig.ready``): cashed out now
    where they are not in the running hand; where they are, the hand's end cashes them out
    (``poker.dealer``, at a hand's finish). Each table is its own command; one that fails is
    logged and the hand's end, or the refused sit-in and top-up, still hold."""
    tables = Seat.objects.filter(player_id=player_id).values_list("table_id", flat=True)
    for table_id in list(tables):
        try:
            table_restriction_enforce(table_id=table_id, player_id=player_id)
        except Exception:
            log.exception(
                "restriction %s: could not unseat player %s at table %s",
                restriction.pk,
                player_id,
                table_id,
            )


def table_sit_out(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Stops being dealt in (keeps the seat); checks/folds automatically in a running hand."""

    def body(ctx: Ctx) -> dict[str, Any]:
        cash_only(ctx, "sitting out")
        seat = seat_of(ctx, player_id)
        if seat.state != Seat.State.ACTIVE:
            raise TableError(f"Seat {seat.number} is {seat.state}.", code="not_active")
        seat.state = Seat.State.SITTING_OUT
        ctx.seat_changed(seat)
        table_event(ctx, table_events.PlayerSatOut(seat=seat.number, **who(seat)))
        index = in_current_hand(ctx, player_id)
        if index is not None and ctx.state is not None and ctx.state.actor == index:
            progress(ctx)
        return {"state": seat.state}

    return run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="sit_out",
        request={},
        actor=actor,
        body=body,
    )


def table_sit_in(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Back in: dealt in at once when no hand runs, else when the big blind comes round."""

    def body(ctx: Ctx) -> dict[str, Any]:
        cash_only(ctx, "sitting in")
        seat = seat_of(ctx, player_id)
        if seat.state != Seat.State.SITTING_OUT:
            raise TableError(
                f"Seat {seat.number} is {seat.state}, not sitting out.", code="not_sitting_out"
            )
        restriction_check(user_id=player_id, action="play")
        if seat.stack == 0:
            raise TableError(
                f"Seat {seat.number} has no chips: top up (rebuy) first, then sit in.",
                code="no_chips",
                max=ctx.table.max_buy_in,
            )
        seat.state = Seat.State.ACTIVE
        seat.waiting_for_big_blind = ctx.table.current_hand_id is not None
        seat.consecutive_timeouts = 0
        ctx.seat_changed(seat)
        table_event(ctx, table_events.PlayerSatIn(seat=seat.number, **who(seat)))
        maybe_start_hand(ctx)
        return {"state": seat.state}

    return run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="sit_in",
        request={},
        actor=actor,
        body=body,
    )


def table_top_up(
    *, table_id: int, player_id: int, amount: object, key: str, actor: Actor
) -> dict[str, Any]:
    """Adds chips from the wallet between hands (a rebuy when the seat is out of chips).
    The rule: the stack after it is within the table's buy-in range, so a seat at or above
    the minimum adds any amount up to the maximum, and one below it (a busted one too)
    adds at least what brings it to the minimum (``top_up_too_small``)."""

    def body(ctx: Ctx) -> dict[str, Any]:
        cash_only(ctx, "topping up")
        value = check_amount(amount)
        seat = seat_of(ctx, player_id)
        if in_current_hand(ctx, player_id) is not None:
            raise TableError("You cannot add chips during a hand you are in.", code="in_hand")
        stack = seat.stack
        if stack + value < ctx.table.min_buy_in:
            raise TableError(
                f"Seat {seat.number} has {stack}, below the minimum buy-in {ctx.table.min_buy_in}: "
                f"add at least {ctx.table.min_buy_in - stack}, not {value}.",
                code="top_up_too_small",
                min=ctx.table.min_buy_in - stack,
                max=ctx.table.max_buy_in - stack,
            )
        if stack + value > ctx.table.max_buy_in:
            raise TableError(
                f"Top-up to {stack + value} exceeds the maximum buy-in {ctx.table.max_buy_in}.",
                code="top_up_too_large",
                max=ctx.table.max_buy_in - stack,
            )
        money.buy_in(
            table_id=ctx.table.pk,
            player_id=player_id,
            amount=value,
            currency=ctx.table.currency,
            key=money.transfer_id("top-up", ctx.table.pk, player_id, key),
        )
        ctx.balances_stale = True
        table_event(ctx, table_events.PlayerToppedUp(seat=seat.number, **who(seat), amount=value))
        maybe_start_hand(ctx)
        return {"stack": stack + value}

    return run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="top_up",
        request={"amount": amount},
        actor=actor,
        body=body,
    )
