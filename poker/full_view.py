"""Who may see every card of a table, and when: the one home of that rule.

The invariant (docs/architecture.md, "Every card"): nobody who may see every card of a
table holds a seat at it, or a place in its tournament. Every way of seeing every card
passes here first -- the live staff view of a table (``/tables/<id>/?full=1``), the hand
API's ``?full=1``, the deal proof's ``?full=1``, a staff single-hand export, an export job
with every card, the staff hand page -- so the pages, REST and exports cannot disagree:

1. **Permission.** Any hand with every card: ``HAND_FULL_PERMISSION`` (support and up).
   The live view of a running table: ``TABLE_WATCH_PERMISSION`` (risk and admin only).
2. **Delay.** A hand is shown with every card only once ``STAFF_FULL_VIEW_DELAY_HANDS``
   hands of its table have ended, itself included (1: once it has ended). The live view
   shows the table as a spectator sees it and reads the every-card view of hands through
   the same rule, so it never shows the hole cards of a hand still being played, whoever
   asks (superusers too).
3. **Involvement.** A user involved at a table (seated there, sitting out included; later
   on its waiting list or in its tournament) gets no every-card view of ANY hand of that
   table, finished ones included, on any channel: 403 ``full_view_while_seated``. The
   checks are a registry (:data:`INVOLVEMENT_CHECKS`): the poker app registers the seats,
   an app above it (tournaments) registers its own without poker importing it.
4. **Seat block.** Opening such a view records a :class:`~poker.models.FullView` for each
   table concerned; ``table_sit`` refuses that staff member a seat there for
   ``STAFF_FULL_VIEW_SEAT_BLOCK_HOURS`` (403 ``watched_with_every_card``).

Points 3 and 4 are decided under the table's row lock, which every seating command takes
first: a sit and a watch of the same table are serialized, so neither can slip between
the other's check and its write.

The WebSocket has no every-card path: a connection only ever gets the public stream and
its own user's private frames.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from core.errors import Conflict, Forbidden
from handhistory.models import Hand
from poker.models import FullView, Seat, Table
from staff.roles import (
    HAND_FULL_PERMISSION,
    TABLE_WATCH_PERMISSION,
    staff_has,
    staff_require,
)

#: ``check(user_id, table_ids) -> {table_id: how the user is involved there}`` for the
#: tables among ``table_ids`` where the user may not see every card ("holds seat 3").
Involvement = Callable[[int, Collection[int]], dict[int, str]]

#: Every way a user can be involved at a table (:func:`involvement_register`).
INVOLVEMENT_CHECKS: list[Involvement] = []


class FullViewWhileInvolved(Forbidden):
    default_code = "full_view_while_seated"


class FullViewDelayed(Conflict):
    default_code = "full_view_delayed"


class WatchedWithEveryCard(Forbidden):
    default_code = "watched_with_every_card"


def involvement_register(check: Involvement) -> None:
    """Adds a way of being involved at a table (an app's ``ready()`` calls it once)."""
    if check not in INVOLVEMENT_CHECKS:
        INVOLVEMENT_CHECKS.append(check)


def seats_held(user_id: int, table_ids: Collection[int]) -> dict[int, str]:
    """The poker app's involvement: a seat (active, sitting out or leaving)."""
    rows = Seat.objects.filter(player_id=user_id, table_id__in=table_ids)
    return {t: f"holds seat {n}" for t, n in rows.values_list("table_id", "number")}


def involvements(*, user_id: int, table_ids: Collection[int]) -> dict[int, str]:
    """Where ``user_id`` is involved among ``table_ids``, and how."""
    found: dict[int, str] = {}
    for check in INVOLVEMENT_CHECKS:
        for table_id, how in check(user_id, table_ids).items():
            found.setdefault(table_id, how)
    return found


def full_view_table_open(*, user: Any, table_id: int) -> datetime:
    """Opens the live staff view of table ``table_id`` for ``user`` (risk, admin): refused
    to anyone else and to a user involved there; recorded, so they may not sit there until
    the returned moment."""
    staff_require(user, TABLE_WATCH_PERMISSION)
    return _open(user=user, table_ids={table_id})


def full_view_hands_open(*, user: Any, hands: QuerySet[Hand]) -> None:
    """Lets ``user`` see every card of ``hands`` (support and up), or raises: no
    permission, a hand within the delay (409 ``full_view_delayed``), a hand of a table
    where the user is involved (403 ``full_view_while_seated``). Recorded per table, as
    the live view is. No hand (an unknown id): nothing to check or record."""
    staff_require(user, HAND_FULL_PERMISSION)
    hands = hands.order_by()
    table_ids = set(hands.values_list("table_id", flat=True).distinct())
    if not table_ids:
        return
    _open(user=user, table_ids=table_ids, hands=hands)


def full_view_watchable(*, user: Any, table_ids: Collection[int]) -> set[int]:
    """The tables among ``table_ids`` (still dealing) whose live staff view ``user`` may
    open now: what the staff dashboard links. Reads only."""
    if not staff_has(user, TABLE_WATCH_PERMISSION):
        return set()
    return set(table_ids) - set(involvements(user_id=user.pk, table_ids=table_ids))


def full_view_readable(*, user: Any, table_ids: Collection[int]) -> dict[int, int]:
    """Table -> its latest hand that ``user`` may see with every card now (the delay
    passed, not involved there), among ``table_ids`` (still dealing). Reads only."""
    if not staff_has(user, HAND_FULL_PERMISSION):
        return {}
    delay = settings.STAFF_FULL_VIEW_DELAY_HANDS
    involved = involvements(user_id=user.pk, table_ids=table_ids)
    return {
        table_id: hand_id
        for table_id, hand_id, rank in _last_ended(table_ids=table_ids, count=delay)
        if rank == delay and table_id not in involved
    }


def full_view_seat_check(*, table_id: int, player_id: int) -> None:
    """Raises 403 ``watched_with_every_card`` when ``player_id`` saw every card of table
    ``table_id`` within the last ``STAFF_FULL_VIEW_SEAT_BLOCK_HOURS``. Called under the
    table's lock by the commands that give a place at the table (``table_sit``)."""
    block = timedelta(hours=settings.STAFF_FULL_VIEW_SEAT_BLOCK_HOURS)
    last = (
        FullView.objects.filter(
            staff_id=player_id, table_id=table_id, at__gt=timezone.now() - block
        )
        .order_by("-at")
        .values_list("at", flat=True)
        .first()
    )
    if last is not None:
        until = last + block
        raise WatchedWithEveryCard(
            f"You saw every card of table {table_id} at {last:%Y-%m-%d %H:%M} UTC: staff who "
            f"did may not sit there until {until:%Y-%m-%d %H:%M} UTC.",
            table=table_id,
            until=until.isoformat(),
        )


def _open(*, user: Any, table_ids: set[int], hands: QuerySet[Hand] | None = None) -> datetime:
    """Under the tables' locks (ascending ids, as every command takes one): refuses a user
    involved at any of them, then any of ``hands`` within the delay, else records the
    view. Returns when the seat block ends."""
    now = timezone.now()
    with transaction.atomic():
        list(Table.objects.select_for_update().filter(pk__in=table_ids).order_by("pk").values("pk"))
        involved = involvements(user_id=user.pk, table_ids=table_ids)
        if involved:
            table_id = min(involved)
            raise FullViewWhileInvolved(
                f"You are involved at table {table_id} ({involved[table_id]}): nobody playing "
                f"at a table may see every card of its hands.",
                table=table_id,
                tables=sorted(involved),
            )
        if hands is not None:
            _delay_check(hands=hands, table_ids=table_ids)
        FullView.objects.bulk_create(
            FullView(staff_id=user.pk, table_id=table_id, at=now) for table_id in sorted(table_ids)
        )
    return now + timedelta(hours=settings.STAFF_FULL_VIEW_SEAT_BLOCK_HOURS)


def _delay_check(*, hands: QuerySet[Hand], table_ids: set[int]) -> None:
    """Refuses a hand still being played, or among the last ``DELAY - 1`` hands ended at a
    table that is not closed (a closed table deals no hand that would end the delay)."""
    delay = settings.STAFF_FULL_VIEW_DELAY_HANDS
    hidden = hands.filter(ended_at__isnull=True).values_list("pk", flat=True).first()
    why = "is still being played"
    if hidden is None and delay > 1:
        recent = [pk for _, pk, _ in _last_ended(table_ids=table_ids, count=delay - 1)]
        hidden = hands.filter(pk__in=recent).values_list("pk", flat=True).first()
        why = "ended too recently"
    if hidden is not None:
        raise FullViewDelayed(
            f"Hand {hidden} {why}: staff see every card of a hand only once {_hands(delay)} "
            f"of its table {'has' if delay == 1 else 'have'} ended, itself included.",
            hand=hidden,
            delay=delay,
        )


def _last_ended(*, table_ids: Collection[int], count: int) -> list[tuple[int, int, int]]:
    """(table, hand, rank) of the last ``count`` hands ended at each table still dealing
    among ``table_ids``, the latest ranked 1."""
    return list(
        Hand.objects.filter(
            table_id__in=table_ids, ended_at__isnull=False, table__status__in=_DEALING
        )
        .annotate(rank=Window(RowNumber(), partition_by=F("table_id"), order_by=F("number").desc()))
        .filter(rank__lte=count)
        .values_list("table_id", "pk", "rank")
    )


_DEALING = (Table.Status.OPEN, Table.Status.PAUSED)


def _hands(n: int) -> str:
    return "1 hand" if n == 1 else f"{n} hands"
