"""Table commands: lock the table -> load the hand -> engine decides -> append events ->
settle money -> commit -> broadcast.

Every command is one durable transaction holding the table's row lock, so two commands
for one table never interleave while different tables run in parallel. Every command is
idempotent by the client's key: the outcome is stored (``TableCommand``) in the same
transaction as its effects, and the same key again returns it without acting twice.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.broadcast import broadcast_table
from core.db import on_postgres
from core.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound
from handhistory.projections import project_hand
from handhistory.store import GENESIS, SYSTEM, Actor, NewEvent, chain
from ledger.models import Account
from ledger.posting import check_amount
from poker import money, table_events, table_io
from poker.engine.betting import legal_actions
from poker.engine.config import HandConfig, RakeConfig
from poker.engine.deck import FairDeck
from poker.engine.errors import EngineError
from poker.engine.events import Event as EngineEvent
from poker.engine.game import act, start_hand
from poker.engine.showdown import showdown_auto
from poker.engine.state import SHOWDOWN, HandState
from poker.fairness import client_seeds_for
from poker.hands import remember
from poker.models import Hand, Seat, Table, TableCommand, Variant, new_server_seed_hex
from poker.privacy import viewable
from poker.selectors import public_view
from wallet.restrictions import restriction_barred_from_tables, restriction_check


class TableError(DomainError):
    status = 422
    default_code = "table_error"


class StaleVersion(Conflict):
    default_code = "stale_version"


class KeyReused(Conflict):
    default_code = "idempotency_key_reused"

    @classmethod
    def of(cls, key: str | None) -> KeyReused:
        return cls(f"Key {key!r} was already used for a different command.", key=key)


class _Overtaken(Exception):
    """The working set a command started from without the lock is no longer current:
    another command committed since. Never leaves ``_run_command``."""


# --- the command envelope -------------------------------------------------------------------


@dataclass
class Ctx:
    """One command's working set, inside the table lock (see ``poker.table_io``)."""

    table: Table
    actor: Actor
    seat_map: dict[int, Seat]
    #: (last seq, last hash) per stream, kept current as events are appended.
    heads: dict[str, tuple[int, str]]
    hand: Hand | None = None
    state: HandState | None = None
    broadcasts: list[dict[str, Any]] = field(default_factory=list)
    #: Chained event rows not yet inserted (``write`` or ``flush`` inserts them).
    pending: list[dict[str, Any]] = field(default_factory=list)
    #: Hands whose row changed (a turn's clock, a hand's end), written with the command.
    changed_hands: dict[int, Hand] = field(default_factory=dict)
    #: Seats whose row changed (state, big-blind wait, timeouts, time bank), likewise.
    changed_seats: dict[int, Seat] = field(default_factory=dict)
    #: The running hand's event payloads so far, in order, when this process has them
    #: all (the projection of a finished hand is then computed without reading them back).
    hand_payloads: list[dict[str, Any]] | None = None
    #: Money moved in this command: the seats' stake balances must be read again.
    balances_stale: bool = False
    #: While the command runs on a working set taken without the table lock: the scope
    #: that ``lock`` enters the transaction in. None under the lock.
    unlocked: ExitStack | None = None
    #: The table version the working set was taken at.
    base_version: int = 0

    @classmethod
    def of(cls, actor: Actor, working: table_io.Working, unlocked: ExitStack | None = None) -> Ctx:
        # The heads are copied: a stale working set must chain onto its own old heads,
        # which the unique (stream, seq) then refuses, never onto current ones.
        return cls(table=working.table, actor=actor, seat_map=working.seats,
                   heads=dict(working.heads), hand=working.hand, state=working.state,
                   hand_payloads=working.hand_payloads, unlocked=unlocked,
                   base_version=working.table.version)  # fmt: skip

    def lock(self) -> None:
        """Takes the table lock now, if the command started without it: before anything
        it does needs the database (the ledger, a new hand). The locked row must still
        be at the version the working set was taken at, else ``_Overtaken``."""
        scope, self.unlocked = self.unlocked, None
        if scope is None:
            return
        scope.enter_context(transaction.atomic(durable=True))
        if not table_io.relock(self.table, self.base_version):
            raise _Overtaken

    def lock_first(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        """A Django execute wrapper: any ORM query of an unlocked command locks first."""
        self.lock()
        return execute(sql, params, many, context)

    def seats(self) -> dict[int, Seat]:
        """Seats by number, with current stake balances."""
        if self.balances_stale:
            table_io.refresh_balances(list(self.seat_map.values()))
            self.balances_stale = False
        return self.seat_map

    def seat_changed(self, seat: Seat) -> None:
        """Marks ``seat``'s row to be written with the command."""
        self.changed_seats[seat.pk] = seat

    def seat_of_player(self, player_id: int) -> Seat | None:
        return next((s for s in self.seat_map.values() if s.player_id == player_id), None)

    def append(self, stream: str, events: list[NewEvent], actor: Actor) -> None:
        rows = chain(stream=stream, events=events, actor=actor, recorded_at=timezone.now(),
                     head=self.heads.get(stream, (0, GENESIS)))  # fmt: skip
        self.heads[stream] = (rows[-1]["seq"], rows[-1]["hash"])
        self.pending.extend(rows)
        if self.hand is not None and stream == self.hand.stream and self.hand_payloads is not None:
            self.hand_payloads.extend(e.payload for e in events)

    def flush(self) -> None:
        """Inserts the pending events now, for what reads them back in this command."""
        self.lock()
        table_io.insert_events(self.pending)
        self.pending = []

    def working(self) -> table_io.Working:
        """What the table's next command starts from."""
        hand = (
            self.hand
            if self.hand is not None and self.hand.pk == self.table.current_hand_id
            else None
        )
        streams = [self.table.stream] + ([hand.stream] if hand is not None else [])
        return table_io.Working(
            table=self.table, seats=self.seats(), hand=hand,
            state=self.state if hand is not None else None,
            heads={stream: self.heads.get(stream, (0, GENESIS)) for stream in streams},
            hand_payloads=self.hand_payloads if hand is not None else None,
        )  # fmt: skip


def _request_hash(command: str, request: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps([command, request], sort_keys=True).encode()).hexdigest()


def _run_command(
    *,
    table_id: int,
    player_id: int | None,
    key: str | None,
    command: str,
    request: dict[str, Any],
    actor: Actor,
    body: Callable[[Ctx], dict[str, Any] | None],
    unlocked: bool = False,
) -> dict[str, Any]:
    """The envelope of every table command (see the module docstring). A body returning
    None did nothing (e.g. a stale timeout): no version bump, no broadcast, no record.

    ``unlocked`` (the players' actions, the hot path) first tries the command on this
    process's working set without taking the table lock (``table_io``): it commits only
    if the table is still at that set's version. Any failure there -- overtaken, or an
    error that a stale copy could have caused -- is answered by the locked path instead.
    """
    if player_id is not None and not key:
        raise InvalidRequest("Every table command needs a client key.", code="key_required")
    if key is not None and (not isinstance(key, str) or len(key) > 128):
        raise InvalidRequest(
            "The client key must be a string of 1-128 characters.", code="invalid_key"
        )
    digest = _request_hash(command, request)
    attempt = partial(_execute, table_id=table_id, player_id=player_id, key=key,
                      command=command, digest=digest, actor=actor, body=body)  # fmt: skip
    if unlocked and on_postgres():
        working = table_io.take_unlocked(table_id)
        if working is not None:
            try:
                return attempt(working=working)
            except (_Overtaken, IntegrityError, DomainError, EngineError):
                pass
    try:
        return attempt(working=None)
    except (IntegrityError, DomainError, EngineError):
        # The key was looked up by the statement that waited for the lock, so a duplicate
        # that committed meanwhile was not seen: this one then failed on the key's unique
        # index or on the rules (already seated...). The command stored under the key is
        # the answer: its outcome if it is this command, else the 409 that the same key
        # sent after it gets (the failure was only a symptom of losing the race).
        stored = (
            TableCommand.objects.filter(player_id=player_id, key=key).first()
            if player_id is not None and key
            else None
        )
        if stored is None:
            raise
        if stored.request_hash != digest or stored.table_id != table_id:
            raise KeyReused.of(key) from None
        return {**stored.result, "replayed": True}


def _execute(
    *,
    table_id: int,
    player_id: int | None,
    key: str | None,
    command: str,
    digest: str,
    actor: Actor,
    body: Callable[[Ctx], dict[str, Any] | None],
    working: table_io.Working | None,
) -> dict[str, Any]:
    """One try of a command: under the table lock from the start (``working`` None), or
    on ``working`` taken without it (see ``_run_command``)."""
    with ExitStack() as scope:
        if working is None:
            scope.enter_context(transaction.atomic(durable=True))
            locked, done = table_io.lock(table_id, player_id, key)
            if locked is None:
                raise NotFound(f"No table {table_id}.", code="table_not_found", table=table_id)
            if done is not None:
                if done.request_hash != digest or done.table_id != locked.pk:
                    raise KeyReused.of(key)
                return {**done.result, "replayed": True}
            ctx = Ctx.of(actor, table_io.take(locked))
        else:
            ctx = Ctx.of(actor, working, unlocked=scope)
            scope.enter_context(connection.execute_wrapper(ctx.lock_first))
        table = ctx.table
        outcome = body(ctx)
        if outcome is not None:
            _deal_if_due(ctx)  # a command after the pause between hands deals the next one
        after = ctx.working()
        if outcome is None:
            if ctx.unlocked is not None:  # "nothing to do" holds only for a current table
                raise _Overtaken
            # Nothing changed, so nothing is written (events, hands and seats are
            # only ever written with a new version).
            assert not (ctx.pending or ctx.changed_hands or ctx.changed_seats)
            result = {"noop": True, "version": table.version}
        else:
            table.version += 1
            result = {**outcome, "version": table.version}
            update = {
                "type": "update",
                # The update log's rows say their shape (poker.table_events); off the wire.
                "schema": table_events.VERSION,
                "version": table.version,
                "events": ctx.broadcasts,
                "public": public_view(table=table, hand=ctx.hand, state=ctx.state,
                                      seats=list(ctx.seats().values())),
            }  # fmt: skip
            record = (
                table_io.Record(player_id, key, command, digest, result)
                if player_id is not None and key
                else None
            )
            if not table_io.write(table, events=ctx.pending, hands=list(ctx.changed_hands.values()),
                                  seats=list(ctx.changed_seats.values()), record=record,
                                  update=update):  # fmt: skip
                raise _Overtaken
            basis = table_io.Published(
                version=table.version, public=update["public"], state=after.state,
                player_ids=tuple(after.hand.player_ids) if after.hand else (),
            )  # fmt: skip
            # Readers of this process see the version before its broadcast arrives. (An
            # unlocked command's write committed by itself: these run at once.)
            transaction.on_commit(lambda: table_io.publish(table.pk, basis))
            broadcast_table(table.pk, update)
    table_io.keep(after)
    if after.hand is not None and after.state is not None:
        remember(after.hand.pk, after.heads[after.hand.stream][1], after.state)
    return result


# --- hands: start, progress, finish ----------------------------------------------------------


def _append_engine(ctx: Ctx, events: list[EngineEvent], actor: Actor) -> list[dict[str, Any]]:
    """Appends the engine's events to the hand's stream and their public form to the
    broadcast; returns that public form."""
    assert ctx.hand is not None and ctx.state is not None
    if not events:
        return []
    ctx.append(
        ctx.hand.stream,
        [NewEvent(type=type(e).__name__, version=e.version, payload=e.to_dict()) for e in events],
        actor,
    )
    # Everything broadcast is public: no hole cards, and the seed only when it reveals
    # nothing (poker.privacy).
    shown = {i for i, s in enumerate(ctx.state.shown) if s}
    reveal = ctx.state.is_over and shown >= set(range(ctx.state.player_count))
    public = [viewable(e, ctx.hand.seat_numbers, shown=shown, reveal_seed=reveal) for e in events]
    ctx.broadcasts.append({"kind": "hand", "hand": ctx.hand.pk, "events": public})
    return public


def _table_event(ctx: Ctx, type_: str, payload: dict[str, Any]) -> None:
    """Appends a table event (stored as it goes on the wire: poker.table_events)."""
    ctx.append(
        ctx.table.stream, [NewEvent(type=type_, version=table_events.VERSION, payload=payload)],
        ctx.actor,
    )  # fmt: skip
    ctx.broadcasts.append({"kind": "table", "event": {"type": type_, **payload}})


def _who(seat: Seat) -> dict[str, Any]:
    """The person at ``seat`` as table events name them (never as ``player``)."""
    return table_events.person(seat.player_id, seat.player.get_username())


def _next_seat(numbers: list[int], after: int | None) -> int:
    later = [n for n in numbers if after is None or n > after]
    return min(later) if later else min(numbers)


def _hand_lineup(table: Table, seats: dict[int, Seat]) -> tuple[int, list[Seat]] | None:
    """The button seat and the players of the next hand (left of the button first, the
    button last), or None when fewer than two can play.

    A player waiting for the big blind is dealt in only when the big blind reaches them --
    except when the game running is heads-up: there the button alternates between the two
    players so the big blind would never reach a newcomer, who is dealt in at once.
    """
    candidates = {
        n: s
        for n, s in seats.items()
        if s.state == Seat.State.ACTIVE and s.stake_account.balance > 0
    }
    if sum(not s.waiting_for_big_blind for s in candidates.values()) <= 2:
        return _lineup_from(table, candidates)
    while (lineup := _lineup_from(table, candidates)) is not None:
        order = [s.number for s in lineup[1]]
        big_blind_seat = order[0] if len(order) == 2 else order[1]
        waiting = [n for n in order if candidates[n].waiting_for_big_blind and n != big_blind_seat]
        if not waiting:
            return lineup
        for n in waiting:
            del candidates[n]
    return None


def _lineup_from(table: Table, candidates: dict[int, Seat]) -> tuple[int, list[Seat]] | None:
    """Everyone in ``candidates`` plays: the button moves to the next of them."""
    if len(candidates) < 2:
        return None
    numbers = sorted(candidates)
    button = _next_seat(numbers, table.button_seat)
    k = numbers.index(button)
    return button, [candidates[n] for n in numbers[k + 1 :] + numbers[: k + 1]]


def _forced_bets(table: Table, n: int) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """(blinds_or_straddles, antes, ante_trimming) in the engine's PHH order."""
    blinds = [0] * n
    blinds[0], blinds[1] = table.small_blind, table.big_blind
    if table.button_blind and n > 2:
        blinds[n - 1] = table.button_blind
    antes = [table.ante] * n
    trimming = True
    if table.big_blind_ante and table.ante:
        antes = [0] * n
        antes[1 if n > 2 else 0] = table.ante * n
        trimming = False
    if n == 2:  # PHH reads heads-up tuples reversed: the button posts the small blind
        antes = antes[::-1]
    return tuple(blinds), tuple(antes), trimming


def _deal_if_due(ctx: Ctx) -> None:
    """Deals the next hand when the pause after the last one is over."""
    due = ctx.table.next_hand_at
    if due is not None and due <= timezone.now() and ctx.table.current_hand_id is None:
        ctx.lock()
        _maybe_start_hand(ctx)


def _maybe_start_hand(ctx: Ctx) -> None:
    """Deals a hand if none runs, two can play and the pause showing the last hand's
    result (``POKER_HAND_PAUSE_MS``) is over."""
    table = ctx.table
    if table.status != Table.Status.OPEN or table.current_hand_id is not None:
        return
    if table.next_hand_at is not None:
        if table.next_hand_at > timezone.now():
            return
        table.next_hand_at = None
    lineup = _hand_lineup(table, ctx.seats())
    if lineup is None:
        return
    button, players = lineup
    n = len(players)
    blinds, antes, trimming = _forced_bets(table, n)
    fixed_limit = table.variant == Variant.FT
    config = HandConfig(
        variant=table.variant,
        starting_stacks=tuple(s.stake_account.balance for s in players),
        blinds_or_straddles=blinds,
        antes=antes,
        ante_trimming=trimming,
        min_bet=0 if fixed_limit else table.big_blind,
        small_bet=table.big_blind if fixed_limit else 0,
        big_bet=2 * table.big_blind if fixed_limit else 0,
        rake=RakeConfig(bps=table.rake_bps, cap=table.rake_cap, no_flop_no_drop=True),
    )
    table.hands_played += 1
    table.button_seat = button
    hand = Hand(
        table=table,
        number=table.hands_played,
        seat_numbers=[s.number for s in players],
        player_ids=[s.player_id for s in players],
    )
    table_io.insert_hand(hand)
    table.current_hand = hand
    for s in players:
        s.waiting_for_big_blind = False
        s.time_bank_ms = min(s.time_bank_ms + TIME_BANK_REFILL_MS, TIME_BANK_MAX_MS)
        ctx.seat_changed(s)
    _table_event(ctx, "HandBegan", {"hand": hand.pk, "number": hand.number, "button_seat": button,
                                     "seats": hand.seat_numbers})  # fmt: skip
    ctx.hand = hand
    ctx.hand_payloads = []
    # The seed was committed in the table view before anyone chose these client seeds;
    # the next hand's seed is drawn (and so committed) in this same transaction.
    deck = FairDeck(
        server_seed=bytes.fromhex(table.next_server_seed),
        client_seeds=client_seeds_for(hand.player_ids),
    )
    table.next_server_seed = new_server_seed_hex()
    state, events = start_hand(config, deck)
    ctx.state = state
    _append_engine(ctx, events, SYSTEM)
    _progress(ctx)


def _auto_decision(state: HandState, player: int) -> tuple[str, None]:
    legal = legal_actions(state)
    assert legal is not None
    return ("check" if "check" in legal.actions else "fold"), None


def _progress(ctx: Ctx) -> None:
    """Runs the hand on until someone present must decide, or it ends (then settles and
    possibly starts the next hand)."""
    assert ctx.hand is not None and ctx.state is not None
    while True:
        state = ctx.state
        if state.phase == SHOWDOWN:
            ctx.state, events = showdown_auto(state)
            _append_engine(ctx, events, SYSTEM)
            continue
        if state.is_over:
            _finish_hand(ctx)
            return
        actor = state.actor
        if actor is None:  # pragma: no cover - a dealt hand with a deck always progresses
            raise RuntimeError(f"hand {ctx.hand.pk} is stuck in phase {state.phase}")
        seat = ctx.seats().get(ctx.hand.seat_numbers[actor])
        if seat is not None and seat.state == Seat.State.ACTIVE:
            _start_turn(ctx, seat, actor)
            return
        # A player who left or sat out mid-hand: check when free, else fold.
        action, amount = _auto_decision(state, actor)
        ctx.state, events = act(state, actor, action, amount)
        _append_engine(ctx, events, SYSTEM)


#: Consecutive timeouts after which a player is sat out.
TIMEOUTS_BEFORE_SIT_OUT = 3
#: The time bank refills by this much per hand dealt in, up to the maximum.
TIME_BANK_REFILL_MS = 2_000
TIME_BANK_MAX_MS = 60_000


def _start_turn(ctx: Ctx, seat: Seat, actor: int) -> None:
    """Records whose turn it is and the deadline (action time + time bank) as a table
    event; ``Hand.deadline`` is its projection, which the timeout sweeper scans."""
    assert ctx.hand is not None
    now = timezone.now()
    deadline = now + timedelta(seconds=ctx.table.action_seconds, milliseconds=seat.time_bank_ms)
    ctx.hand.actor_index = actor
    ctx.hand.turn_started_at = now
    ctx.hand.deadline = deadline
    ctx.changed_hands[ctx.hand.pk] = ctx.hand
    _table_event(ctx, "TurnStarted", {
        "hand": ctx.hand.pk, "seat": seat.number, **_who(seat),
        "started_at": now.isoformat(), "deadline": deadline.isoformat(),
        "time_bank_ms": seat.time_bank_ms,
    })  # fmt: skip


def _spend_time_bank(ctx: Ctx, seat: Seat) -> None:
    """Charges the time used beyond the action time to the player's time bank."""
    assert ctx.hand is not None
    if ctx.hand.turn_started_at is None:
        return
    used_ms = int((timezone.now() - ctx.hand.turn_started_at).total_seconds() * 1000)
    over = max(0, used_ms - ctx.table.action_seconds * 1000)
    if over:
        seat.time_bank_ms = max(0, seat.time_bank_ms - over)
        ctx.seat_changed(seat)


def _finish_hand(ctx: Ctx) -> None:
    ctx.lock()  # the ledger, the projections and the next hand need the database
    hand, state, table = ctx.hand, ctx.state, ctx.table
    assert hand is not None and state is not None
    starting = state.config.starting_stacks
    results = [(pid, state.stacks[i] - starting[i]) for i, pid in enumerate(hand.player_ids)]
    money.settle_hand(
        hand_id=hand.pk,
        table_id=table.pk,
        currency=table.currency,
        results=results,
        rake=state.rake,
    )
    # The settlement nets every seat exactly its result: each stake now holds the final
    # stack (what the multi-table test checks against the ledger).
    for i, number in enumerate(hand.seat_numbers):
        ctx.seat_map[number].stake_account.balance = state.stacks[i]
    hand.ended_at = timezone.now()
    hand.actor_index = None
    hand.deadline = None
    ctx.changed_hands[hand.pk] = hand
    if ctx.hand_payloads is None:  # this process joined mid-hand: read the events back
        ctx.flush()
    project_hand(hand, payloads=ctx.hand_payloads, state=state)
    table.current_hand = None
    _table_event(
        ctx,
        "HandFinished",
        {
            "hand": hand.pk,
            "stacks": dict(zip(map(str, hand.seat_numbers), state.stacks, strict=True)),
        },
    )
    leaving = [s for s in ctx.seats().values() if s.state == Seat.State.LEAVING]
    for seat in sorted(leaving, key=lambda s: s.number):
        _cash_out(ctx, seat, reason=f"hand:{hand.pk}")
    _cash_out_barred(ctx, hand)
    _sit_out_busted(ctx, hand)
    if table.status == Table.Status.CLOSED:
        return
    pause_ms = settings.POKER_HAND_PAUSE_MS
    if pause_ms > 0 and table.status == Table.Status.OPEN:
        # The result stays on every screen for the pause; the sweeper (or any command
        # after it) deals the next hand. Held here, not in the browsers, so every client
        # and bot sees the same pause.
        table.next_hand_at = timezone.now() + timedelta(milliseconds=pause_ms)
        return
    _maybe_start_hand(ctx)


def _cash_out_barred(ctx: Ctx, hand: Hand) -> None:
    """Cashes out every seated player who took a time-out or self-exclusion (one that
    began during this hand, or whose seat the start could not clear): they played the
    hand out, and are not dealt the next one."""
    seats = ctx.seats()
    barred = restriction_barred_from_tables(user_ids=[s.player_id for s in seats.values()])
    for seat in sorted((s for s in seats.values() if s.player_id in barred),
                       key=lambda s: s.number):  # fmt: skip
        _cash_out(ctx, seat, reason=f"hand:{hand.pk}")


def _sit_out_busted(ctx: Ctx, hand: Hand) -> None:
    """Sits out every active player of ``hand`` left with no chips: they keep the seat
    and may top up (rebuy) and sit in again, instead of sitting at 0 marked active."""
    for number in hand.seat_numbers:
        seat = ctx.seat_map.get(number)
        if seat is None or seat.state != Seat.State.ACTIVE or seat.stake_account.balance:
            continue
        seat.state = Seat.State.SITTING_OUT
        ctx.seat_changed(seat)
        _table_event(ctx, "PlayerSatOut", {"seat": number, "user_id": seat.player_id,
                                           "reason": "busted"})  # fmt: skip


def _cash_out(ctx: Ctx, seat: Seat, *, reason: str) -> int:
    account = Account.objects.get(pk=seat.stake_account_id)
    amount = account.balance
    if amount:
        money.cash_out(
            table_id=ctx.table.pk,
            player_id=seat.player_id,
            amount=amount,
            currency=ctx.table.currency,
            key=money.transfer_id("cash-out", ctx.table.pk, seat.player_id, reason, seat.pk),
        )
    _table_event(ctx, "PlayerLeft", {"seat": seat.number, **_who(seat), "cashed_out": amount})
    # Forget the seat's pending row write before the delete clears its primary key.
    ctx.changed_seats.pop(seat.pk, None)
    del ctx.seat_map[seat.number]
    seat.delete()
    return amount


# --- validation helpers -------------------------------------------------------------------------


def _seat_of(ctx: Ctx, player_id: int) -> Seat:
    seat = ctx.seat_of_player(player_id)
    if seat is None:
        raise Forbidden(f"You are not seated at table {ctx.table.pk}.", code="not_seated")
    return seat


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


def _in_current_hand(ctx: Ctx, player_id: int) -> int | None:
    if ctx.hand is None or ctx.state is None or ctx.state.is_over:
        return None
    try:
        return list(ctx.hand.player_ids).index(player_id)
    except ValueError:
        return None


# --- commands -------------------------------------------------------------------------------


def table_create(*, name: str, variant: str, small_blind: int, big_blind: int, min_buy_in: int,
                 max_buy_in: int, max_seats: int = 6, ante: int = 0, currency: str = "CHIPS",
                 rake_bps: int = 0, rake_cap: int = 0, action_seconds: int = 30,
                 big_blind_ante: bool = False, button_blind: int = 0,
                 key: str | None = None) -> Table:  # fmt: skip
    """Creates a table after checking its stakes make sense. With a ``key`` (the creator's
    idempotency key), the same key again returns the same table; with other settings it
    is refused (``idempotency_key_reused``)."""
    if variant not in Variant.values:
        raise InvalidRequest(f"Unknown variant {variant!r}.", code="invalid_variant")
    for label, value in (
        ("big_blind", big_blind),
        ("min_buy_in", min_buy_in),
        ("max_buy_in", max_buy_in),
    ):
        check_amount(value, name=label)
    for label, value in (("small_blind", small_blind), ("ante", ante), ("rake_cap", rake_cap),
                         ("button_blind", button_blind)):  # fmt: skip
        if type(value) is not int or value < 0:
            raise InvalidRequest(
                f"{label} must be a non-negative integer.", code="invalid_amount", field=label
            )
    if not small_blind <= big_blind:
        raise InvalidRequest("The small blind cannot exceed the big blind.", code="invalid_stakes")
    if not 2 <= max_seats <= 10:
        raise InvalidRequest("A table has 2 to 10 seats.", code="invalid_seats")
    if max_buy_in < min_buy_in or min_buy_in < big_blind:
        raise InvalidRequest(
            "Buy-in range must satisfy big blind <= min <= max.", code="invalid_buy_in_range"
        )
    if not 0 <= rake_bps <= 10_000:
        raise InvalidRequest("Rake is 0 to 10000 basis points.", code="invalid_rake")
    fields = dict(
        name=name, variant=variant, small_blind=small_blind, big_blind=big_blind, ante=ante,
        max_seats=max_seats, min_buy_in=min_buy_in, max_buy_in=max_buy_in, currency=currency,
        rake_bps=rake_bps, rake_cap=rake_cap, action_seconds=action_seconds,
        big_blind_ante=big_blind_ante, button_blind=button_blind,
    )  # fmt: skip
    try:
        with transaction.atomic(durable=True):
            return Table.objects.create(**fields, creation_key=key)
    except IntegrityError:
        existing = Table.objects.filter(creation_key=key).first() if key else None
        if existing is None:
            raise
        if any(getattr(existing, field) != value for field, value in fields.items()):
            raise KeyReused(f"Key {key!r} already created a different table.", key=key) from None
        return existing


def table_sit(*, table_id: int, player_id: int, buy_in: object, seat: object = None, key: str,
              actor: Actor) -> dict[str, Any]:  # fmt: skip
    """Takes a seat with a buy-in from the player's wallet; may start a hand."""

    def body(ctx: Ctx) -> dict[str, Any]:
        table = ctx.table
        if table.status != Table.Status.OPEN:
            raise TableError(f"Table {table.pk} is {table.status}.", code="table_not_open")
        amount = check_amount(buy_in, name="buy_in")
        if not table.min_buy_in <= amount <= table.max_buy_in:
            raise TableError(
                f"Buy-in {amount} is outside {table.min_buy_in}..{table.max_buy_in}.",
                code="buy_in_out_of_range", min=table.min_buy_in, max=table.max_buy_in,
            )  # fmt: skip
        seats = ctx.seats()
        if any(s.player_id == player_id for s in seats.values()):
            raise TableError("You are already seated at this table.", code="already_seated")
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
        money.buy_in(table_id=table.pk, player_id=player_id, amount=amount, currency=table.currency,
                     key=money.transfer_id("buy-in", table.pk, player_id, key))  # fmt: skip
        running = table.current_hand_id is not None
        ctx.seat_map[number] = sat = Seat.objects.create(
            table=table, number=number, player_id=player_id, stake_account=stake,
            waiting_for_big_blind=running,
        )  # fmt: skip
        ctx.balances_stale = True
        _table_event(ctx, "PlayerSat", {"seat": number, **_who(sat), "buy_in": amount})
        _maybe_start_hand(ctx)
        return {"seat": number, "buy_in": amount}

    return _run_command(table_id=table_id, player_id=player_id, key=key, command="sit",
                        request={"buy_in": buy_in, "seat": seat}, actor=actor, body=body)  # fmt: skip


def table_leave(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Leaves now (cash-out), or at the end of the current hand if in it (folding first
    when it is this player's turn)."""

    def body(ctx: Ctx) -> dict[str, Any]:
        seat = _seat_of(ctx, player_id)
        index = _in_current_hand(ctx, player_id)
        if index is None:
            return {"left": True, "cashed_out": _cash_out(ctx, seat, reason=f"leave:{key}")}
        seat.state = Seat.State.LEAVING
        ctx.seat_changed(seat)
        _table_event(ctx, "PlayerLeaving", {"seat": seat.number, **_who(seat)})
        if ctx.state is not None and ctx.state.actor == index:
            _progress(ctx)  # folds for them: a hand that ends here cashes them out now
        if ctx.seat_map.get(seat.number) is not seat:
            left = next(b["event"] for b in ctx.broadcasts if b["kind"] == "table"
                        and b["event"]["type"] == "PlayerLeft"
                        and b["event"]["seat"] == seat.number)  # fmt: skip
            return {"left": True, "cashed_out": left["cashed_out"]}
        return {"left": False, "leaving_after_hand": True}

    return _run_command(table_id=table_id, player_id=player_id, key=key, command="leave",
                        request={}, actor=actor, body=body)  # fmt: skip


def table_restriction_enforce(*, table_id: int, player_id: int) -> dict[str, Any]:
    """Takes a player under a time-out or self-exclusion off the table: cashed out now
    when not in the running hand; in it, they play it out and its end cashes them out
    (``_cash_out_barred``). Does nothing when they are not seated, in the hand, or no
    longer barred, so it may run again safely."""

    def body(ctx: Ctx) -> dict[str, Any] | None:
        seat = ctx.seat_of_player(player_id)
        if seat is None or _in_current_hand(ctx, player_id) is not None:
            return None
        if player_id not in restriction_barred_from_tables(user_ids=[player_id]):
            return None
        return {"left": True, "cashed_out": _cash_out(ctx, seat, reason="restricted")}

    return _run_command(table_id=table_id, player_id=None, key=None, command="restricted",
                        request={"player_id": player_id}, actor=SYSTEM, body=body)  # fmt: skip


def table_sit_out(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Stops being dealt in (keeps the seat); checks/folds automatically in a running hand."""

    def body(ctx: Ctx) -> dict[str, Any]:
        seat = _seat_of(ctx, player_id)
        if seat.state != Seat.State.ACTIVE:
            raise TableError(f"Seat {seat.number} is {seat.state}.", code="not_active")
        seat.state = Seat.State.SITTING_OUT
        ctx.seat_changed(seat)
        _table_event(ctx, "PlayerSatOut", {"seat": seat.number, **_who(seat)})
        index = _in_current_hand(ctx, player_id)
        if index is not None and ctx.state is not None and ctx.state.actor == index:
            _progress(ctx)
        return {"state": seat.state}

    return _run_command(table_id=table_id, player_id=player_id, key=key, command="sit_out",
                        request={}, actor=actor, body=body)  # fmt: skip


def table_sit_in(*, table_id: int, player_id: int, key: str, actor: Actor) -> dict[str, Any]:
    """Back in: dealt in at once when no hand runs, else when the big blind comes round."""

    def body(ctx: Ctx) -> dict[str, Any]:
        seat = _seat_of(ctx, player_id)
        if seat.state != Seat.State.SITTING_OUT:
            raise TableError(
                f"Seat {seat.number} is {seat.state}, not sitting out.", code="not_sitting_out"
            )
        restriction_check(user_id=player_id, action="play")
        if seat.stake_account.balance == 0:
            raise TableError(
                f"Seat {seat.number} has no chips: top up (rebuy) first, then sit in.",
                code="no_chips", max=ctx.table.max_buy_in,
            )  # fmt: skip
        seat.state = Seat.State.ACTIVE
        seat.waiting_for_big_blind = ctx.table.current_hand_id is not None
        seat.consecutive_timeouts = 0
        ctx.seat_changed(seat)
        _table_event(ctx, "PlayerSatIn", {"seat": seat.number, **_who(seat)})
        _maybe_start_hand(ctx)
        return {"state": seat.state}

    return _run_command(table_id=table_id, player_id=player_id, key=key, command="sit_in",
                        request={}, actor=actor, body=body)  # fmt: skip


def table_top_up(
    *, table_id: int, player_id: int, amount: object, key: str, actor: Actor
) -> dict[str, Any]:
    """Adds chips from the wallet between hands, up to the table's maximum buy-in."""

    def body(ctx: Ctx) -> dict[str, Any]:
        value = check_amount(amount)
        seat = _seat_of(ctx, player_id)
        if _in_current_hand(ctx, player_id) is not None:
            raise TableError("You cannot add chips during a hand you are in.", code="in_hand")
        stack = seat.stake_account.balance
        if stack + value > ctx.table.max_buy_in:
            raise TableError(
                f"Top-up to {stack + value} exceeds the maximum buy-in {ctx.table.max_buy_in}.",
                code="top_up_too_large", max=ctx.table.max_buy_in - stack,
            )  # fmt: skip
        money.buy_in(table_id=ctx.table.pk, player_id=player_id, amount=value,
                     currency=ctx.table.currency,
                     key=money.transfer_id("top-up", ctx.table.pk, player_id, key))  # fmt: skip
        ctx.balances_stale = True
        _table_event(ctx, "PlayerToppedUp", {"seat": seat.number, **_who(seat), "amount": value})
        _maybe_start_hand(ctx)
        return {"stack": stack + value}

    return _run_command(table_id=table_id, player_id=player_id, key=key, command="top_up",
                        request={"amount": amount}, actor=actor, body=body)  # fmt: skip


ACTIONS = ("fold", "check", "call", "bet", "raise")


def table_act(*, table_id: int, player_id: int, action: object, amount: object = None,
              version: object = None, key: str, actor: Actor) -> dict[str, Any]:  # fmt: skip
    """A betting decision by the player whose turn it is."""
    # Wrong whatever the table's state: refused before the command takes the table.
    if version is not None and type(version) is not int:
        raise InvalidRequest(
            f"version must be an integer, got {version!r}.", code="invalid_version"
        )
    if action not in ACTIONS:
        raise InvalidRequest(f"Unknown action {action!r}; expected one of {', '.join(ACTIONS)}.",
                             code="unknown_action")  # fmt: skip
    if amount is not None and (type(amount) is not int or amount < 0 or amount >= 2**63):
        raise InvalidRequest(
            f"amount must be a non-negative integer, got {amount!r}.", code="invalid_amount"
        )

    def body(ctx: Ctx) -> dict[str, Any]:
        if version is not None and version != ctx.table.version:
            raise StaleVersion(
                f"Your view is at version {version}; the table is at {ctx.table.version}.",
                current=ctx.table.version,
            )
        seat = _seat_of(ctx, player_id)
        index = _in_current_hand(ctx, player_id)
        if index is None:
            raise TableError("You are not in the current hand.", code="not_in_hand")
        assert ctx.state is not None and ctx.hand is not None
        try:
            ctx.state, events = act(ctx.state, index, str(action), amount)  # type: ignore[arg-type]
        except EngineError as error:
            raise _refusal_in_seats(ctx, error) from None
        if seat.consecutive_timeouts:
            seat.consecutive_timeouts = 0
            ctx.seat_changed(seat)
        _spend_time_bank(ctx, seat)
        # The reply goes only to the actor, but it carries the broadcast's public form of
        # the action's events: public for any future variant, mapped to this hand's seats.
        public = _append_engine(ctx, events, actor)
        hand_id = ctx.hand.pk
        _progress(ctx)  # may end this hand and start the next, with other seats
        return {"hand": hand_id, "events": public}

    result = _run_command(table_id=table_id, player_id=player_id, key=key, command="act",
                          request={"action": action, "amount": amount, "version": version},
                          actor=actor, body=body, unlocked=True)  # fmt: skip
    # A retried key answers with the stored outcome, perhaps stored before the rename.
    return table_events.read_act_result(result) if result.get("replayed") else result


def table_timeout(*, table_id: int, expected_version: int) -> dict[str, Any]:
    """Enforces the shot clock: if the turn seen at ``expected_version`` is overdue, the
    player checks when free, else folds; after TIMEOUTS_BEFORE_SIT_OUT in a row they are
    sat out. A stale version (someone acted meanwhile) or a turn not yet due does nothing,
    so racing sweepers act exactly once."""

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
        action, _ = _auto_decision(state, index)
        ctx.state, events = act(state, index, action, None)
        seat.consecutive_timeouts += 1
        seat.time_bank_ms = 0
        sat_out = seat.consecutive_timeouts >= TIMEOUTS_BEFORE_SIT_OUT
        if sat_out:
            seat.state = Seat.State.SITTING_OUT
        ctx.seat_changed(seat)
        _table_event(ctx, "TurnTimedOut", {"hand": hand.pk, "seat": seat.number, **_who(seat),
                                           "action": action})  # fmt: skip
        if sat_out:
            _table_event(ctx, "PlayerSatOut", {"seat": seat.number, **_who(seat),
                                               "reason": "timeouts"})  # fmt: skip
        _append_engine(ctx, events, SYSTEM)
        _progress(ctx)
        return {"timed_out": True, "seat": seat.number, "action": action}

    return _run_command(table_id=table_id, player_id=None, key=None, command="timeout",
                        request={"expected_version": expected_version}, actor=SYSTEM, body=body)  # fmt: skip


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
        _maybe_start_hand(ctx)
        ctx.table.next_hand_at = None  # also when no hand could start (a paused table)
        return {"dealt": ctx.table.current_hand_id is not None}

    return _run_command(table_id=table_id, player_id=None, key=None, command="deal",
                        request={}, actor=SYSTEM, body=body)  # fmt: skip


CHAT_MAX_LENGTH = 200
CHAT_RATE = (5, 10)  # at most 5 messages per 10 seconds per player and table


class ChatRateLimited(DomainError):
    status = 429
    default_code = "chat_rate_limited"


def table_chat(
    *, table_id: int, player_id: int, text: object, key: str, actor: Actor
) -> dict[str, Any]:
    """Posts a chat line to the table stream (plain text; clients escape it)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidRequest("Chat text must be a non-empty string.", code="invalid_chat")
    clean = " ".join(text.split())
    if len(clean) > CHAT_MAX_LENGTH:
        raise InvalidRequest(f"Chat lines are at most {CHAT_MAX_LENGTH} characters.", code="chat_too_long",
                             max=CHAT_MAX_LENGTH)  # fmt: skip
    limit, window = CHAT_RATE

    def body(ctx: Ctx) -> dict[str, Any]:
        # Counted here, after the envelope found no stored result for this key, so a
        # retried line gets its original answer instead of eating the allowance.
        bucket = f"chat:{table_id}:{player_id}:{int(time.time() // window)}"
        cache.add(bucket, 0, timeout=window * 2)
        if cache.incr(bucket) > limit:
            raise ChatRateLimited(
                f"At most {limit} chat lines per {window} seconds.", retry_after_s=window
            )
        seat = ctx.seat_of_player(player_id)
        name = (seat.player if seat else get_user_model().objects.get(pk=player_id)).get_username()
        _table_event(ctx, "ChatPosted", {"seat": seat.number if seat else None,
                                         **table_events.person(player_id, name), "text": clean})  # fmt: skip
        return {"posted": True}

    return _run_command(table_id=table_id, player_id=player_id, key=key, command="chat",
                        request={"text": text}, actor=actor, body=body)  # fmt: skip
