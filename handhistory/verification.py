"""Checks of the event store against itself and against the ledger.

1. Every stream's hash chain is intact (seqs consecutive, each hash recomputes), and every
   event of a stream whose owner registered a reader (:func:`stream_reader_register`: the
   poker app registers its table events for ``table-``) is one the code reads.
2. Every finished hand replays, and the settlement its replay implies -- the legs computed
   by the same pure function the table service used -- is exactly what the ledger holds
   for that hand (same debit, credit and amount, leg by leg).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import astuple
from typing import Any

from django.db.models import QuerySet

from handhistory.models import Event, Hand
from handhistory.store import GENESIS, verify_chain
from ledger.models import AccountKind, Transfer
from poker.engine.events import event_from_dict
from poker.engine.transitions import replay
from wallet.services import house_account
from wallet.tables import SettlementLeg, seat_ref, settlement_legs

#: A stream reader: given a stored event's type, version and payload, the reason the code
#: cannot read it, or None when it can.
StreamReader = Callable[[str, int, Mapping[str, Any]], str | None]

#: The reader of each kind of stream, by the prefix of its name (``"table-"``). The event
#: store knows no event types of its own callers: each stream's owner registers its reader
#: in its ``AppConfig.ready()`` (``poker.apps``), as ``core.exceptions`` does for errors.
STREAM_READERS: dict[str, StreamReader] = {}


def stream_reader_register(prefix: str, reader: StreamReader) -> None:
    """Checks every event of the streams named ``prefix...`` with ``reader``."""
    STREAM_READERS[prefix] = reader


def streams_of(rows: QuerySet[Event] | None = None) -> Iterator[list[Event]]:
    """``rows`` (every event by default), one stream at a time, in seq order."""
    stream: list[Event] = []
    source = Event.objects.all() if rows is None else rows
    for row in source.order_by("stream", "seq").iterator(chunk_size=2000):
        if stream and row.stream != stream[0].stream:
            yield stream
            stream = []
        stream.append(row)
    if stream:
        yield stream


def verify_chains() -> tuple[int, list[str]]:
    """(streams checked, problems)."""
    problems: list[str] = []
    count = 0
    for rows in streams_of():
        count += 1
        problems.extend(verify_stream(rows))
    return count, problems


def verify_stream(rows: list[Event], *, after: tuple[int, str] = (0, GENESIS)) -> list[str]:
    """Problems of one stream's ``rows`` (in seq order, following ``after``: the (seq,
    hash) of the row before the first, the stream's start by default): the hash chain,
    and for a stream with a registered reader (a table stream) whether the code can read
    each event."""
    problems = verify_chain(rows, after=after)
    if rows:
        for prefix, reader in STREAM_READERS.items():
            if rows[0].stream.startswith(prefix):
                problems.extend(_unreadable(rows, reader))
    return problems


def _unreadable(rows: list[Event], reader: StreamReader) -> list[str]:
    problems = []
    for row in rows:
        if (problem := reader(row.type, row.version, row.payload)) is not None:
            problems.append(f"{row.stream}#{row.seq}: {problem}")
    return problems


def _seat_accounts(hand: Hand) -> list[int]:
    """The seat-stake account of each player of the hand (accounts outlive seats)."""
    from ledger.models import Account

    refs = [seat_ref(table_id=hand.table_id, player_id=pid) for pid in hand.player_ids]
    found = dict(
        Account.objects.filter(
            kind="seat_stake", owner_ref__in=refs, currency=hand.table.currency
        ).values_list("owner_ref", "pk")
    )
    return [found.get(ref, -1) for ref in refs]


def verify_settlements() -> tuple[int, list[str]]:
    """(finished hands checked, problems)."""
    problems: list[str] = []
    ledger_legs: dict[str, list[SettlementLeg[int]]] = defaultdict(list)
    for ref, debit, credit, amount in (
        Transfer.objects.filter(reference__startswith="hand:")
        .order_by("created_at", "id")
        .values_list("reference", "debit_account_id", "credit_account_id", "amount")
    ):
        ledger_legs[ref].append(SettlementLeg(debit, credit, amount))
    count = 0
    hands = Hand.objects.filter(ended_at__isnull=False).select_related("table").order_by("pk")
    for hand in hands.iterator(chunk_size=500):
        count += 1
        rows = (
            Event.objects.filter(stream=hand.stream)
            .order_by("seq")
            .values_list("payload", flat=True)
        )
        try:
            state = replay(event_from_dict(p) for p in rows)
        except Exception as exc:
            problems.append(f"hand {hand.pk}: does not replay ({type(exc).__name__}: {exc})")
            continue
        if not state.is_over:
            problems.append(f"hand {hand.pk}: marked ended but its events do not end it")
            continue
        if getattr(hand.table, "tournament_id", None) is not None:
            continue  # tournament chips are not money: such a hand settles nothing
        accounts = _seat_accounts(hand)
        starting = state.config.starting_stacks
        deltas = [(accounts[i], state.stacks[i] - starting[i]) for i in range(len(accounts))]
        house = house_account(kind=AccountKind.HOUSE_RAKE, currency=hand.table.currency).pk
        expected = sorted(settlement_legs(deltas, state.rake, house))
        posted = sorted(ledger_legs.get(f"hand:{hand.pk}", []))
        if expected != posted:
            shown = [astuple(leg) for leg in posted], [astuple(leg) for leg in expected]
            problems.append(f"hand {hand.pk}: ledger settlement {shown[0]} != replayed {shown[1]}")
    return count, problems
