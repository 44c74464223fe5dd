"""The consistency checks an audit run performs, one function per check.

Each returns a :class:`CheckResult` (what it looked at, the problems found, and for the
event-store passes how far it verified) and knows nothing of how runs are recorded or
reported (``audit.services``). They reuse the project's own checks: the ledger audit
(``ledger.audit``) and the event store's verification (``handhistory.verification``); what
they add is the incremental pass over the event store and the table stakes check.

Every check reads one consistent snapshot (REPEATABLE READ on PostgreSQL; SQLite's read
transaction is one already), so commands committing meanwhile cannot raise a false alarm.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Max, QuerySet, Sum
from django.utils import timezone

from handhistory.models import Event, Hand
from handhistory.store import GENESIS
from handhistory.verification import (
    streams_of,
    verify_chains,
    verify_settlements,
    verify_stream,
)
from ledger.audit import ledger_audit
from ledger.models import Account, AccountKind
from poker import money
from poker.hands import hand_state
from poker.models import Seat, Table
from poker.table_events import UnreadableEvent, read_table_event
from tournaments.models import Tournament

#: An event's position is drawn when it is inserted, but it is visible only once its
#: transaction commits: a later position may be seen before an earlier one. The watermark
#: therefore stops at events recorded at least this long ago, and the events after it are
#: verified again by the next pass (the daily full pass covers anything slower still).
WATERMARK_LAG = timedelta(seconds=60)


@dataclass
class CheckResult:
    """What one check looked at (``checked``), what it found (``failures``), and for the
    event-store passes the position up to which every event is verified."""

    checked: int = 0
    failures: list[str] = field(default_factory=list)
    watermark: int | None = None


@contextmanager
def _snapshot() -> Iterator[None]:
    """A read-only transaction that sees one moment of the database."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def check_ledger() -> CheckResult:
    """The ledger audit (conservation, cached balances and holds, overdrafts, currencies,
    resolutions); counts the transfers it recomputed."""
    report = ledger_audit()
    return CheckResult(checked=report.transfers, failures=list(report.problems))


def _safe_watermark(rows: QuerySet[Event], floor: int) -> int:
    """The highest position among ``rows`` recorded before the lag, at least ``floor``."""
    cutoff = timezone.now() - WATERMARK_LAG
    top = rows.filter(recorded_at__lte=cutoff).aggregate(top=Max("position"))["top"]
    return max(floor, top or 0)


_SQL_PREDECESSORS = """
SELECT e.stream, e.seq, e.hash FROM handhistory_event e
JOIN (SELECT stream, MIN(seq) AS first FROM handhistory_event WHERE position > %s
      GROUP BY stream) n ON n.stream = e.stream AND e.seq = n.first - 1
"""


def check_event_store(*, after: int) -> CheckResult:
    """Verifies the events past position ``after`` (the last passed run's watermark).

    Only new events are read, but each stream's first new event is checked against the
    row before it (its seq follows, its ``prev_hash`` is that row's hash), so a chain
    broken at the watermark is found as surely as one broken after it.
    """
    with _snapshot():
        with connection.cursor() as cursor:
            cursor.execute(_SQL_PREDECESSORS, [after])
            before = {stream: (seq, hash_) for stream, seq, hash_ in cursor.fetchall()}
        new = Event.objects.filter(position__gt=after)
        result = CheckResult(watermark=_safe_watermark(new, after))
        for rows in streams_of(new):
            result.checked += len(rows)
            first = rows[0]
            start = (0, GENESIS) if first.seq == 1 else before.get(first.stream)
            if start is None:
                result.failures.append(
                    f"{first.stream}#{first.seq}: the event before it (#{first.seq - 1}) is missing"
                )
                start = (first.seq - 1, first.prev_hash)
            result.failures.extend(verify_stream(rows, after=start))
        return result


def check_event_store_full() -> CheckResult:
    """Every stream's whole chain from its start; counts the events. Its watermark lets
    the incremental passes resume from here."""
    with _snapshot():
        everything = Event.objects.all()
        checked = everything.count()
        watermark = _safe_watermark(everything, 0)
        _, failures = verify_chains()
        return CheckResult(checked=checked, failures=failures, watermark=watermark)


def check_replay_settlement() -> CheckResult:
    """Every finished hand replayed: the settlement its events imply is the ledger's,
    leg by leg; counts the hands."""
    with _snapshot():
        hands, failures = verify_settlements()
        return CheckResult(checked=hands, failures=failures)


#: The table events that put chips on a seat (the rest: turns, chat, sitting out...).
_MONEY_EVENTS = ("PlayerSat", "PlayerToppedUp", "HandBegan")
#: Hands whose players are read per query while walking a table's history back.
_HAND_CHUNK = 200


def check_tournament_accounts() -> CheckResult:
    """Every finished or cancelled tournament's own accounts (prize pool, bounties) hold
    exactly nothing: whatever came in was paid out or refunded. Counts those tournaments."""
    with _snapshot():
        ended = dict(
            Tournament.objects.filter(
                status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
            ).values_list("pk", "status")
        )
        left = (
            Account.objects.filter(
                kind__in=[AccountKind.TOURNAMENT_POOL, AccountKind.TOURNAMENT_BOUNTY],
                owner_ref__in=[f"tournament:{pk}" for pk in ended],
            )
            .exclude(balance=0, held=0)
            .order_by("owner_ref", "kind", "currency")
        )
        failures = []
        for account in left:
            pk = int(account.owner_ref.removeprefix("tournament:"))
            held = f" ({account.held} held)" if account.held else ""
            failures.append(
                f"tournament {pk} ({ended[pk]}): {account.kind} holds {account.balance} "
                f"{account.currency}{held}"
            )
        return CheckResult(checked=len(ended), failures=failures)


def check_table_stakes() -> CheckResult:
    """For every table with no hand running: each seat's stake in the ledger is the stack
    the table's events give it, and the table's stake accounts hold nothing more.

    The engine's stack of a seated player between hands is what their last hand ended
    with (its replay), or their buy-in if they sat down since, plus every top-up after
    that: the table stream records each of these moves (``HandBegan``, ``PlayerSat``,
    ``PlayerToppedUp``), the ledger records the transfers. Counts the tables.
    """
    with _snapshot():
        result = CheckResult()
        for table in Table.objects.filter(current_hand__isnull=True, tournament_id=None).order_by(
            "pk"
        ):
            result.checked += 1
            result.failures.extend(_table_problems(table))
        return result


def _table_problems(table: Table) -> list[str]:
    where = f"table {table.pk} ({table.name})"
    seats = {
        player_id: (number, balance)
        for player_id, number, balance in Seat.objects.filter(table=table).values_list(
            "player_id", "number", "stake_account__balance"
        )
    }
    try:
        expected, problems = _engine_stacks(table, where, set(seats))
    except UnreadableEvent as exc:
        return [f"{where}: {exc}"]
    for player_id, (number, balance) in sorted(seats.items(), key=lambda s: s[1][0]):
        stack = expected.get(player_id)
        if stack is not None and stack != balance:
            problems.append(
                f"{where}: seat {number} (player {player_id}) holds {balance} in the ledger "
                f"but {stack} at the table"
            )
    prefix = money.seat_ref(table_id=table.pk, player_id=0).removesuffix("0")
    total = Account.objects.filter(
        kind=AccountKind.SEAT_STAKE, owner_ref__startswith=prefix, currency=table.currency
    ).aggregate(total=Sum("balance"))["total"]
    seated = sum(balance for _, balance in seats.values())
    if (total or 0) != seated:
        problems.append(
            f"{where}: its stake accounts hold {total or 0} but its seats {seated} "
            "(chips left behind by players who are gone)"
        )
    return problems


def _engine_stacks(table: Table, where: str, seated: set[int]) -> tuple[dict[int, int], list[str]]:
    """Each seated player's stack by the table's events, walking them back from the newest
    until every seated player is anchored (their last hand, or their sitting down since):
    the top-ups met on the way are added. A table at rest reads its tail only."""
    problems: list[str] = []
    stacks: dict[int, int] = {}
    top_ups: dict[int, int] = dict.fromkeys(seated, 0)
    looking = set(seated)
    players_of: dict[int, list[int]] = {}
    events = (
        Event.objects.filter(stream=table.stream, type__in=_MONEY_EVENTS)
        .order_by("-seq")
        .values_list("type", "version", "payload")
    )
    for type_, version, payload in events.iterator(chunk_size=500):
        if not looking:
            break
        event = read_table_event(type_, version, payload, usernames={})
        if type_ == "HandBegan":
            hand_id = event["hand"]
            if hand_id not in players_of:
                players_of.update(_players_up_to(table, hand_id))
            in_hand = players_of.get(hand_id, [])
            anchored = looking.intersection(in_hand)
            if anchored:
                final = _final_stacks(hand_id)
                if not final:
                    problems.append(
                        f"{where}: hand {hand_id} has ended but its events do not end it"
                    )
                for player_id in anchored:
                    if final:
                        stacks[player_id] = final[in_hand.index(player_id)] + top_ups[player_id]
                    looking.discard(player_id)
        elif event["user_id"] in looking:
            player_id = event["user_id"]
            if type_ == "PlayerToppedUp":
                top_ups[player_id] += int(event["amount"])
            else:  # PlayerSat: their chips start from this buy-in
                stacks[player_id] = int(event["buy_in"]) + top_ups[player_id]
                looking.discard(player_id)
    problems.extend(
        f"{where}: player {player_id} is seated but never sat down" for player_id in sorted(looking)
    )
    return stacks, problems


def _players_up_to(table: Table, hand_id: int) -> dict[int, list[int]]:
    """The players of ``hand_id`` and of the table's hands just before it (one query for
    the next stretch of the walk back)."""
    return dict(
        Hand.objects.filter(table=table, pk__lte=hand_id)
        .order_by("-pk")
        .values_list("pk", "player_ids")[:_HAND_CHUNK]
    )


def _final_stacks(hand_id: int) -> list[int]:
    """The stacks a finished hand's replay ends with ([] if its events do not end it)."""
    state, _ = hand_state(Hand.objects.get(pk=hand_id), use_snapshot=False)
    return list(state.stacks) if state.is_over else []
