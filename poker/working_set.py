"""One table command's working set (:class:`Ctx`) and the one way a table event is
written into it (:func:`table_event`): what the command runner (``poker.commands.runner``)
takes, writes and broadcasts, and what the hand flow (``poker.dealer``) and the commands
work on. Both import it from here, below them; it imports neither.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from handhistory.models import Hand
from handhistory.store import GENESIS, Actor, NewEvent, chain
from poker import table_events, table_io
from poker.engine.state import HandState
from poker.models import Seat, Table
from poker.storage import table_store


class Overtaken(Exception):
    """The working set a command started from without the lock is no longer current:
    another command committed since. The only reason a command runs twice; never leaves
    ``poker.commands.runner.run_command``."""


@dataclass
class Ctx:
    """One command's working set: taken under the table's lock, or (the warm strategy, see
    the module docstring) a copy taken without it, until ``lock`` takes the lock and proves
    the copy current. The rows behind it move in ``poker.table_io``."""

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
        return cls(
            table=working.table,
            actor=actor,
            seat_map=working.seats,
            heads=dict(working.heads),
            hand=working.hand,
            state=working.state,
            hand_payloads=working.hand_payloads,
            unlocked=unlocked,
            base_version=working.table.version,
        )

    def lock(self) -> None:
        """Takes the table lock now, if the command started without it: before anything
        it does needs the database (the ledger, a new hand). The locked row must still
        be at the version the working set was taken at, else ``Overtaken``."""
        scope, self.unlocked = self.unlocked, None
        if scope is None:
            return
        scope.enter_context(transaction.atomic(durable=True))
        if not table_store().relock(self.table, self.base_version):
            raise Overtaken

    def lock_first(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        """A Django execute wrapper: any ORM query of an unlocked command locks first."""
        self.lock()
        return execute(sql, params, many, context)

    def seats(self) -> dict[int, Seat]:
        """Seats by number, with current stake balances."""
        if self.balances_stale:
            table_store().refresh_balances(list(self.seat_map.values()))
            self.balances_stale = False
        return self.seat_map

    def seat_changed(self, seat: Seat) -> None:
        """Marks ``seat``'s row to be written with the command."""
        self.changed_seats[seat.pk] = seat

    def seat_of_player(self, player_id: int) -> Seat | None:
        return next((s for s in self.seat_map.values() if s.player_id == player_id), None)

    def append(self, stream: str, events: list[NewEvent], actor: Actor) -> None:
        rows = chain(
            stream=stream,
            events=events,
            actor=actor,
            recorded_at=timezone.now(),
            head=self.heads.get(stream, (0, GENESIS)),
        )
        self.heads[stream] = (rows[-1]["seq"], rows[-1]["hash"])
        self.pending.extend(rows)
        if self.hand is not None and stream == self.hand.stream and self.hand_payloads is not None:
            self.hand_payloads.extend(e.payload for e in events)

    def flush(self) -> None:
        """Inserts the pending events now, for what reads them back in this command."""
        self.lock()
        table_store().insert_events(self.pending)
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
            table=self.table,
            seats=self.seats(),
            hand=hand,
            state=self.state if hand is not None else None,
            heads={stream: self.heads.get(stream, (0, GENESIS)) for stream in streams},
            hand_payloads=self.hand_payloads if hand is not None else None,
        )


def table_event(ctx: Ctx, event: table_events.TableEvent) -> None:
    """Appends a table event to the table's stream and the broadcast: the one way one is
    written (stored as it goes on the wire: poker.table_events)."""
    type_, payload = type(event).__name__, event.payload()
    ctx.append(
        ctx.table.stream, [NewEvent(type=type_, version=event.VERSION, payload=payload)], ctx.actor
    )
    ctx.broadcasts.append({"kind": "table", "event": {"type": type_, **payload}})


def who(seat: Seat) -> dict[str, Any]:
    """The person at ``seat`` as table events name them (never as ``player``)."""
    return table_events.person(seat.player_id, seat.player.get_username())
