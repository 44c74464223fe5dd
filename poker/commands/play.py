"""Play commands: a player's action, the shot clock's timeout, the sweeper that enforces
overdue turns and deals hands due after their pause."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from handhistory.models import Hand
from handhistory.store import SYSTEM, Actor
from poker import table_events
from poker.commands import inputs
from poker.commands.runner import StaleVersion, TableError, run_command
from poker.dealer import (
    TIMEOUTS_BEFORE_SIT_OUT,
    append_engine,
    auto_decision,
    in_current_hand,
    maybe_start_hand,
    progress,
    seat_of,
    spend_time_bank,
)
from poker.engine.errors import EngineError
from poker.engine.game import act
from poker.models import Seat, Table
from poker.presence import presence_disconnected
from poker.working_set import Ctx, table_event, who


def table_act(
    *,
    table_id: int,
    player_id: int,
    action: object,
    amount: object = None,
    version: object = None,
    key: str,
    actor: Actor,
) -> dict[str, Any]:
    """A betting decision by the player whose turn it is."""
    inputs.act_request(action=action, amount=amount, version=version)

    def body(ctx: Ctx) -> dict[str, Any]:
        if version is not None and version != ctx.table.version:
            raise StaleVersion(
                f"Your view is at version {version}; the table is at {ctx.table.version}.",
                current=ctx.table.version,
            )
        seat = seat_of(ctx, player_id)
        index = in_current_hand(ctx, player_id)
        if index is None:
            raise TableError("You are not in the current hand.", code="not_in_hand")
        assert ctx.state is not None and ctx.hand is not None
        try:
            ctx.state, events = act(ctx.state, index, str(action), amount)  # type: ignore[arg-type]  # the engine validates the amount's type and refuses a bad one
        except EngineError as error:
            raise _refusal_in_seats(ctx, error) from None
        if seat.consecutive_timeouts:
            seat.consecutive_timeouts = 0
            ctx.seat_changed(seat)
        spend_time_bank(ctx, seat)
        # The reply goes only to the actor, but it carries the broadcast's public form of
        # the action's events: public for any future variant, mapped to this hand's seats.
        public = append_engine(ctx, events, actor)
        hand_id = ctx.hand.pk
        progress(ctx)  # may end this hand and start the next, with other seats
        return {"hand": hand_id, "events": public}

    result = run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="act",
        request={"action": action, "amount": amount, "version": version},
        actor=actor,
        body=body,
        unlocked=True,
    )
    # A retried key answers with the stored outcome, perhaps stored before the rename.
    return table_events.read_act_result(result) if result.get("replayed") else result


def _refusal_in_seats(ctx: Ctx, error: EngineError) -> TableError:
    """An engine refusal as the table says it, over REST and WebSocket alike: the players
    it names by seat and username, the hand by its id -- in the message and in ``extra``
    (``seat``/``username``, ``actor_seat``/``actor_username``, ``hand``). The engine's
    indexes mean nothing to the people at the table and never leave this function."""
    assert ctx.hand is not None
    hand = ctx.hand

    def seat_and_name(index: int) -> tuple[int, str | None]:
        number = hand.seat_numbers[index]
        seat = ctx.seat_map.get(number)
        return number, seat.player.get_username() if seat is not None else None

    def name(index: int) -> str:
        number, username = seat_and_name(index)
        return f"seat {number} ({username})" if username else f"seat {number}"

    extra = {k: v for k, v in error.extra.items() if k not in ("player", "actor")}
    for role, index in error.players.items():
        prefix = "" if role == "player" else f"{role}_"
        extra[f"{prefix}seat"], extra[f"{prefix}username"] = seat_and_name(index)
    extra["hand"] = hand.pk
    return TableError(error.render(name, hand=f"hand {hand.pk}, "), code=error.code, **extra)


def _sit_out_reason(ctx: Ctx, seat: Seat) -> str | None:
    """Why a player whose time ran out is sat out, or None. An absent tournament player
    never is: dealt in every hand, folded when their time runs out."""
    if ctx.table.is_tournament:
        return None
    if presence_disconnected(table_id=ctx.table.pk, player_id=seat.player_id):
        return "disconnected"  # their time bank is spent: nobody is there to play
    if seat.consecutive_timeouts >= TIMEOUTS_BEFORE_SIT_OUT:
        return "timeouts"
    return None


def table_timeout(*, table_id: int, expected_version: int) -> dict[str, Any]:
    """Enforces the shot clock: if the turn seen at ``expected_version`` is overdue, the
    player checks when free, else folds; at a cash table they are sat out after
    TIMEOUTS_BEFORE_SIT_OUT in a row, or at once when disconnected (every socket they had
    at the table is gone, ``poker.presence``: the turn gave them their time bank once); at
    a tournament table they stay in, folded at every turn their time runs out. A stale
    version (someone acted meanwhile) or a turn not yet due does nothing, so racing
    sweepers act exactly once."""

    def body(ctx: Ctx) -> dict[str, Any] | None:
        if ctx.table.version != expected_version:
            return None
        hand, state = ctx.hand, ctx.state
        if hand is None or state is None or state.actor is None:
            return None
        # The clock is decided on the row the sweepers scan, not on this process's copy.
        hand.refresh_from_db(fields=["deadline"])
        if hand.deadline is None:
            return None
        if hand.deadline > timezone.now():
            return None
        index = state.actor
        seat = ctx.seat_of_player(hand.player_ids[index])
        assert seat is not None  # a seat leaves only once its hand is over
        action, _ = auto_decision(state, index)
        ctx.state, events = act(state, index, action, None)
        seat.consecutive_timeouts += 1
        seat.time_bank_ms = 0
        reason = _sit_out_reason(ctx, seat)
        sat_out = reason is not None
        if sat_out:
            seat.state = Seat.State.SITTING_OUT
        ctx.seat_changed(seat)
        table_event(
            ctx,
            table_events.TurnTimedOut(hand=hand.pk, seat=seat.number, **who(seat), action=action),
        )
        if sat_out:
            table_event(
                ctx, table_events.PlayerSatOut(seat=seat.number, **who(seat), reason=reason)
            )
        append_engine(ctx, events, SYSTEM)
        progress(ctx)
        return {"timed_out": True, "seat": seat.number, "action": action}

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="timeout",
        request={"expected_version": expected_version},
        actor=SYSTEM,
        body=body,
    )


def timeouts_sweep() -> int:
    """Times out every overdue turn and deals every hand due after its pause (the periodic
    sweeper); returns how many turns and hands it enforced.

    Reads each overdue table's version first and passes it as the expected version, so
    two sweepers (or a sweeper and a player acting at the last moment) never double-act.
    """
    overdue = (
        Hand.objects.filter(deadline__lte=timezone.now(), ended_at__isnull=True)
        .values_list("table_id", "table__version")
        .order_by("deadline")[:500]
    )
    enforced = 0
    for table_id, version in list(overdue):
        if table_timeout(table_id=table_id, expected_version=version).get("timed_out"):
            enforced += 1
    due = Table.objects.filter(next_hand_at__lte=timezone.now(), current_hand__isnull=True)
    for table_id in list(due.order_by("next_hand_at").values_list("pk", flat=True)[:500]):
        if table_deal_due(table_id=table_id).get("dealt"):
            enforced += 1
    return enforced


def table_deal_due(*, table_id: int) -> dict[str, Any]:
    """Deals the next hand once the pause after the last one is over (the sweeper's
    part of ``POKER_HAND_PAUSE_MS``); does nothing before, or when it was dealt already,
    so racing sweepers deal once. When nobody can play, the pause just ends."""

    def body(ctx: Ctx) -> dict[str, Any] | None:
        due = ctx.table.next_hand_at
        if due is None or due > timezone.now() or ctx.table.current_hand_id is not None:
            return None
        maybe_start_hand(ctx)
        ctx.table.next_hand_at = None  # also when no hand could start (a paused table)
        return {"dealt": ctx.table.current_hand_id is not None}

    return run_command(
        table_id=table_id,
        player_id=None,
        key=None,
        command="deal",
        request={},
        actor=SYSTEM,
        body=body,
    )
