"""Staff table commands: pause, resume and close.

They run through the same command envelope as the players' commands
(``poker.commands.runner.run_command``) and the same hand rules (``poker.dealer``), so
the money paths are the same ones.

Closing is immediate and complete: the table is marked closed, every seated player who is
not in the running hand is cashed out at once, and players in the running hand are marked
as leaving; the hand is then run on with the rule that already applies to players who
leave mid-hand (check when free, else fold), so it ends inside the same command and its
settlement cashes the rest out. A closed table never starts another hand. Staff who want
a hand to finish with real decisions pause first and close once the hand is over.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from handhistory.store import Actor
from poker.commands.runner import TableError, run_command
from poker.commands.seating import cash_only
from poker.dealer import cash_out, maybe_start_hand, progress
from poker.models import Seat, Table
from poker.table_events import TableClosed, TablePaused, TableResumed
from poker.working_set import Ctx, table_event
from staff.log import staff_log_record
from staff.roles import staff_require


def staff_actor(user_id: int | None) -> Actor:
    """The actor recorded for a staff command."""
    return Actor(kind="staff", user_id=user_id)


def _staff_member(actor: Actor) -> Any:
    """The staff member behind ``actor``, refused without the table permission; None for
    an operator (``staff_actor(None)``: the command line, the tests' set-up)."""
    if actor.user_id is None:
        return None
    user = get_user_model().objects.filter(pk=actor.user_id).first()
    staff_require(user, "poker.change_table")
    return user


def _staff_logged(ctx: Ctx, staff: Any, action: str, **data: Any) -> None:
    if staff is not None:
        staff_log_record(actor=staff, action=action, target=f"table:{ctx.table.pk}", data=data)


def table_pause(*, table_id: int, actor: Actor) -> dict[str, Any]:
    """No new hand starts; a running hand plays on to its end. Seated players stay."""
    staff = _staff_member(actor)

    def body(ctx: Ctx) -> dict[str, Any]:
        if ctx.table.status != Table.Status.OPEN:
            raise TableError(f"Table {ctx.table.pk} is {ctx.table.status}.", code="table_not_open")
        ctx.table.status = Table.Status.PAUSED
        table_event(ctx, TablePaused(by=actor.user_id))
        _staff_logged(ctx, staff, "table.pause")
        return {"status": ctx.table.status}

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="pause",
        request={},
        actor=actor,
        body=body,
    )


def table_resume(*, table_id: int, actor: Actor) -> dict[str, Any]:
    """Opens a paused table again; a hand starts at once when enough players can play."""
    staff = _staff_member(actor)

    def body(ctx: Ctx) -> dict[str, Any]:
        if ctx.table.status != Table.Status.PAUSED:
            raise TableError(
                f"Table {ctx.table.pk} is {ctx.table.status}, not paused.", code="table_not_paused"
            )
        ctx.table.status = Table.Status.OPEN
        table_event(ctx, TableResumed(by=actor.user_id))
        _staff_logged(ctx, staff, "table.resume")
        maybe_start_hand(ctx)
        return {"status": ctx.table.status}

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="resume",
        request={},
        actor=actor,
        body=body,
    )


def table_close(*, table_id: int, actor: Actor) -> dict[str, Any]:
    """Closes the table and cashes everyone out (see the module docstring for a running hand)."""
    staff = _staff_member(actor)

    def body(ctx: Ctx) -> dict[str, Any]:
        cash_only(ctx, "closing with a cash-out")
        table = ctx.table
        if table.status == Table.Status.CLOSED:
            raise TableError(f"Table {table.pk} is already closed.", code="table_closed")
        table.status = Table.Status.CLOSED
        table_event(ctx, TableClosed(by=actor.user_id))
        running = ctx.hand is not None and ctx.state is not None and not ctx.state.is_over
        in_hand = set(ctx.hand.player_ids) if running and ctx.hand is not None else set()
        cashed_out = 0
        for seat in sorted(ctx.seats().values(), key=lambda s: s.number):
            if seat.player_id in in_hand:
                seat.state = Seat.State.LEAVING
                ctx.seat_changed(seat)
            else:
                cashed_out += cash_out(ctx, seat, reason="table-closed")
        if running:
            # Every player of the hand is now leaving: the hand runs to its end here, and
            # its settlement cashes them out (and starts nothing, the table being closed).
            progress(ctx)
        _staff_logged(ctx, staff, "table.close", cashed_out=cashed_out, hand_finished=running)
        return {"status": table.status, "hand_finished": running}

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="close",
        request={},
        actor=actor,
        body=body,
    )
