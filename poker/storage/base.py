"""The table store's interface: what the command runner and the dealer need from storage.

One interface, two adapters, chosen once by the database (``poker.storage.table_store``):

- ``postgres.PostgresTableStore``: raw psycopg statements, prepared once per connection,
  a command's writes as ONE guarded statement (the hot path pays for every round trip);
- ``embedded.EmbeddedTableStore``: the same effects through the ORM, for SQLite (``make
  run`` on a bare machine), where every command runs under the lock.

What every adapter guarantees is stated here, method by method, and proven by one
contract suite run against both (``tests/poker/test_table_store.py``): on PostgreSQL, and
the embedded adapter on SQLite too. The process's caches of what was read or written
(the working sets, the published views) are not storage: they live in ``poker.table_io``
and ``poker.published``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from handhistory.models import Hand
from handhistory.store import stream_head
from ledger.models import Account
from poker.engine.state import HandState
from poker.hands import hand_state
from poker.models import Seat, Table

Head = tuple[int, str]

#: What a command changes in a table's row (the rest is fixed when the table is created).
TABLE_FIELDS = [
    "version",
    "button_seat",
    "hands_played",
    "current_hand",
    "status",
    "next_hand_at",
    "next_server_seed",
]
#: What a command changes in a hand's row (the rest is fixed when the hand starts).
HAND_FIELDS = ["actor_index", "turn_started_at", "deadline", "ended_at"]
#: What a command changes in a seat's row (the rest is fixed when the player sits down).
SEAT_FIELDS = ["state", "waiting_for_big_blind", "consecutive_timeouts", "time_bank_ms", "chips"]


@dataclass(frozen=True)
class Done:
    """The stored outcome of a command key."""

    table_id: int
    request_hash: str
    result: dict[str, Any]


@dataclass(frozen=True)
class Record:
    """The stored outcome of a player's command (its idempotency record)."""

    player_id: int
    key: str
    command: str
    request_hash: str
    result: dict[str, Any]


@dataclass
class Working:
    """What a command works on: the table row, seats by number (with their player and
    stake account), the running hand and its engine state, and the stream heads."""

    table: Table
    seats: dict[int, Seat]
    hand: Hand | None
    state: HandState | None
    heads: dict[str, Head]
    #: The running hand's event payloads, when this process saw the hand from its start.
    hand_payloads: list[dict[str, Any]] | None = None


class TableStore(ABC):
    """The rows of the table path. Every method runs in the caller's transaction (none
    opens its own, except that ``write`` is all or nothing by itself)."""

    #: Whether ``write`` is ONE statement, so that in autocommit mode it is a transaction
    #: of its own: only then may a command run on a warm copy without the lock (the
    #: runner's warm strategy), its guarded write deciding alone whether it counts.
    write_is_one_statement: ClassVar[bool]

    @abstractmethod
    def lock(
        self, table_id: int, player_id: int | None, key: str | None
    ) -> tuple[Table | None, Done | None]:
        """The table's row, locked until the transaction ends (None when there is none),
        and the stored outcome of the player's ``key``, if any (None without a player or
        a key).

        The outcome is read when the lock is granted, so a duplicate that committed
        meanwhile may be missed: its unique (player, key) index then refuses this
        command's record, and the caller answers with the stored outcome."""

    @abstractmethod
    def relock(self, table: Table, version: int) -> bool:
        """Locks the table's row, as :meth:`lock` does, for a command that started from
        an unlocked working set; whether the row is still the one that set was taken at
        (the same table, by its creation time, at ``version``)."""

    @abstractmethod
    def insert_hand(self, hand: Hand) -> None:
        """Inserts a new hand's row now (its id names its stream): ``hand`` gets its id
        and its start time, as the row holds them."""

    @abstractmethod
    def insert_events(self, rows: Sequence[dict[str, Any]]) -> None:
        """Inserts chained event rows (``handhistory.store.chain``) now, before something
        in the command reads them back; all or none (a taken (stream, seq) refuses the
        batch with ``IntegrityError``)."""

    @abstractmethod
    def write(
        self,
        table: Table,
        *,
        events: Sequence[dict[str, Any]],
        hands: Sequence[Hand],
        seats: Sequence[Seat],
        record: Record | None,
        update: dict[str, Any],
    ) -> bool:
        """A command's remaining writes: its events, the hands whose row it changed (a
        turn's clock, a hand's end: ``HAND_FIELDS``), the seats it changed
        (``SEAT_FIELDS``), the table row (``TABLE_FIELDS``, now at ``table.version``),
        its idempotency record and the public update of this version.

        A compare-and-set: written only if the table's row is still at
        ``table.version - 1`` and is the same table (its creation time). False when it
        was not: then nothing was written. All or nothing either way (a taken event
        (stream, seq) or command key raises ``IntegrityError`` and leaves nothing)."""

    def load(self, table: Table) -> Working:
        """The table's working set read from the database, for ``table`` (locked)."""
        seats = {
            s.number: s
            for s in Seat.objects.filter(table_id=table.pk).select_related(
                "stake_account", "player"
            )
        }
        heads = {table.stream: stream_head(table.stream)}
        hand, state = None, None
        if table.current_hand_id is not None:
            hand = Hand.objects.get(pk=table.current_hand_id)
            hand.table = table
            state, heads[hand.stream] = hand_state(hand)
        return Working(table=table, seats=seats, hand=hand, state=state, heads=heads)

    def refresh_balances(self, seats: Sequence[Seat]) -> None:
        """Re-reads the stake balances of ``seats`` (after money moved in this transaction)."""
        cash = [s for s in seats if s.stake_account is not None]
        balances = dict(
            Account.objects.filter(pk__in=[s.stake_account_id for s in cash]).values_list(
                "pk", "balance"
            )
        )
        for seat in cash:
            assert seat.stake_account is not None
            seat.stake_account.balance = balances[seat.stake_account_id]
