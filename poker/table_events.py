"""The table stream's events and the update log, read in today's shape whatever their age.

A word on the wire means one thing (docs/protocol.md): ``seat`` is a seat number at the
table, ``user_id`` a user's id, ``username`` their name. Table events are stored at
:data:`VERSION` 2 with those names. Version 1 (before) called the user id ``player`` --
and ``ChatPosted`` called the user id ``player_id`` and the username ``player`` -- while
hand events on the wire carried the engine's ``player`` index beside the seat, and
``PotAwarded.winners`` were engine indexes. Rows written then are never rewritten (the
event store is append-only and hash-chained), so every reader goes through this module:
:func:`read_table_event` for a stored table event, :func:`read_update` for an update-log
row (what ``resync`` and the table page replay).

The events written now are the frozen, keyword-only dataclasses below (one per type,
each field one meaning, the version on the class); ``poker.working_set.table_event``
is the one function that writes them. Their stored and wire form is :meth:`TableEvent.payload`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

#: The schema of table events written now, and of update-log rows (their ``schema``).
VERSION = 2


def _optional() -> Any:
    """A field left out of the payload when it has no value (as such rows were written)."""
    return field(default=None, metadata={"omit_none": True})


@dataclass(frozen=True, kw_only=True, slots=True)
class TableEvent:
    """A table-stream event: its class name is its stored ``type``."""

    VERSION: ClassVar[int] = VERSION

    def payload(self) -> dict[str, Any]:
        """The stored (and broadcast) fields, in declaration order."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.metadata.get("omit_none"):
                continue
            out[f.name] = value
        return out


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerSat(TableEvent):
    seat: int
    user_id: int
    username: str
    buy_in: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerLeaving(TableEvent):
    """In the running hand: leaves (cashed out) at its end."""

    seat: int
    user_id: int
    username: str


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerLeft(TableEvent):
    seat: int
    user_id: int
    username: str
    cashed_out: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerSatOut(TableEvent):
    """``reason``: none (the player's choice), ``timeouts``, ``disconnected`` (timed out
    with every socket at the table gone) or ``busted``. A busted
    player's event names them by id only."""

    seat: int
    user_id: int
    username: str | None = _optional()
    reason: str | None = _optional()


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerSatIn(TableEvent):
    seat: int
    user_id: int
    username: str


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerToppedUp(TableEvent):
    seat: int
    user_id: int
    username: str
    amount: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerSeatedWithChips(TableEvent):
    """A tournament table: the tournament seated a player with its chips (not money)."""

    seat: int
    user_id: int
    username: str
    chips: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerMovedOut(TableEvent):
    """A tournament table: the tournament took a player off with their chips (a move to
    another table, a table broken)."""

    seat: int
    user_id: int
    username: str
    chips: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerBusted(TableEvent):
    """A tournament table: the player had no chips left after ``hand`` and left the table."""

    seat: int
    user_id: int
    username: str
    hand: int


@dataclass(frozen=True, kw_only=True, slots=True)
class HandBegan(TableEvent):
    hand: int
    number: int
    button_seat: int
    seats: list[int]


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnStarted(TableEvent):
    """``started_at`` and ``deadline`` are ISO 8601 instants."""

    hand: int
    seat: int
    user_id: int
    username: str
    started_at: str
    deadline: str
    time_bank_ms: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnTimedOut(TableEvent):
    hand: int
    seat: int
    user_id: int
    username: str
    action: str


@dataclass(frozen=True, kw_only=True, slots=True)
class HandFinished(TableEvent):
    """``stacks``: seat number (as a string, a JSON key) -> chips at the hand's end."""

    hand: int
    stacks: dict[str, int]


@dataclass(frozen=True, kw_only=True, slots=True)
class ChatPosted(TableEvent):
    """``seat`` is None for a spectator."""

    seat: int | None
    user_id: int
    username: str
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class TablePaused(TableEvent):
    """``by``: the staff member's user id (None: an operator)."""

    by: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class TableResumed(TableEvent):
    by: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class TableClosed(TableEvent):
    by: int | None


class UnreadableEvent(ValueError):
    """A stored table event that no code here knows how to read."""


#: Every table event type by its stored name.
# A table, one row per line: the formatter leaves it as written (fmt: skip).
TABLE_EVENT_TYPES: dict[str, type[TableEvent]] = {
    cls.__name__: cls
    for cls in (PlayerSat, PlayerLeaving, PlayerLeft, PlayerSatOut, PlayerSatIn,
                PlayerToppedUp, PlayerSeatedWithChips, PlayerMovedOut, PlayerBusted,
                HandBegan, TurnStarted, TurnTimedOut, HandFinished, ChatPosted, TablePaused,
                TableResumed, TableClosed)
}  # fmt: skip


def table_event_from_wire(data: Mapping[str, Any]) -> TableEvent:
    """A table event as the wire carries it (``{"type": ..., **fields}``, today's shape:
    :func:`read_table_event`), typed again. A field an old row never had is None."""
    cls = TABLE_EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        raise UnreadableEvent(f"{data.get('type')!r} is not a table event type")
    return cls(**{f.name: data.get(f.name) for f in fields(cls)})


@dataclass(frozen=True, kw_only=True, slots=True)
class HandEvents:
    """The public events of one hand in an update: engine events in seats, as on the wire
    (``poker.engine.privacy.public_hand_events``)."""

    hand: int
    events: tuple[Mapping[str, Any], ...]

    def dealt_to(self, seat: int | None) -> bool:
        """Whether ``seat`` was dealt hole cards in these events."""
        return any(e.get("type") == "HoleCardsDealt" and e.get("seat") == seat for e in self.events)


@dataclass(frozen=True, kw_only=True, slots=True)
class Update:
    """One committed change of a table as broadcast (and kept in the update log), read:
    its version, its events typed in order, the public view after it."""

    version: int
    events: tuple[TableEvent | HandEvents, ...]
    public: Mapping[str, Any] | None

    @property
    def has_hand_events(self) -> bool:
        return any(isinstance(g, HandEvents) and g.events for g in self.events)


def read_update(update: Mapping[str, Any]) -> Update:
    """An update in today's shape (a broadcast, or a row after :func:`read_updates`) as an
    :class:`Update`."""
    groups: list[TableEvent | HandEvents] = []
    for group in update.get("events") or ():
        kind = group.get("kind")
        if kind == "table":
            groups.append(table_event_from_wire(group["event"]))
        elif kind == "hand":
            groups.append(HandEvents(hand=group["hand"], events=tuple(group.get("events") or ())))
        else:
            raise UnreadableEvent(f"{kind!r} is not a kind of update group")
    return Update(version=int(update["version"]), events=tuple(groups), public=update.get("public"))


def person(user_id: int, username: str) -> dict[str, Any]:
    """How a table event names a person."""
    return {"user_id": user_id, "username": username}


def read_table_event(
    type_: str,
    version: int,
    payload: Mapping[str, Any],
    usernames: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """A stored table event as the wire carries it now: ``{"type": ..., **fields}``.

    ``usernames`` (user id -> name) names the people of version-1 events, which stored
    only an id; a missing one is looked up. Any type is read (the table stream grows new
    kinds of event); a version no code ever wrote is refused.
    """
    if version not in (1, VERSION):
        raise UnreadableEvent(f"{type_} version {version} is not a table event this code reads")
    data = dict(payload)
    if version == 1:
        if type_ == "ChatPosted":
            data["username"] = data.pop("player", None)
            data["user_id"] = data.pop("player_id", None)
        elif "player" in data:
            user_id = data.pop("player")
            data["user_id"] = user_id
            names = usernames if usernames is not None else _usernames([user_id])
            data["username"] = names.get(user_id)
    return {"type": type_, **data}


def table_event_problem(type_: str, version: int, payload: Mapping[str, Any]) -> str | None:
    """Why a stored table event cannot be read (None: it can): the table stream's reader
    for the event store's check (``handhistory.verification.stream_reader_register``)."""
    try:
        read_table_event(type_, version, payload, usernames={})
    except UnreadableEvent as exc:
        return str(exc)
    return None


def _usernames(user_ids: Iterable[int]) -> dict[int, str]:
    from django.contrib.auth import get_user_model

    model = get_user_model()
    ids = {i for i in user_ids if isinstance(i, int)}
    if not ids:
        return {}
    return dict(model.objects.filter(pk__in=ids).values_list("pk", model.USERNAME_FIELD))


def read_updates(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Update-log rows in today's shape; rows written before version 2 are translated
    (their people named, their hand events in seats). One query per kind at most."""
    old = [u for u in updates if u.get("schema") != VERSION]
    if not old:
        return updates
    from handhistory.models import Hand

    user_ids = [
        g["event"].get("player")
        for u in old
        for g in u.get("events") or ()
        if g.get("kind") == "table" and g["event"].get("type") != "ChatPosted"
    ]
    names = _usernames(user_ids)
    hand_ids = {
        g.get("hand") for u in old for g in u.get("events") or () if g.get("kind") == "hand"
    }
    seats = dict(Hand.objects.filter(pk__in=hand_ids).values_list("pk", "seat_numbers"))
    return [u if u.get("schema") == VERSION else _read_v1(u, names, seats) for u in updates]


def _read_v1(
    update: dict[str, Any], names: Mapping[int, str], seats: Mapping[int, list[int]]
) -> dict[str, Any]:
    groups = []
    for group in update.get("events") or ():
        if group.get("kind") == "table":
            event = dict(group["event"])
            type_ = event.pop("type")
            group = {**group, "event": read_table_event(type_, 1, event, names)}
        elif group.get("kind") == "hand":
            numbers = seats.get(group.get("hand"), [])
            group = {**group, "events": [_hand_event_v1(e, numbers) for e in group["events"]]}
        groups.append(group)
    public = update.get("public")
    if public and public.get("seats"):
        public = {**public, "seats": [_seat_row_v1(row) for row in public["seats"]]}
    return {**update, "events": groups, "public": public, "schema": VERSION}


def read_act_result(result: dict[str, Any]) -> dict[str, Any]:
    """A stored ``table_act`` outcome in today's shape. One stored before version 2 is
    known by its first event, the action, naming the engine's ``player``."""
    events = result.get("events") or []
    if not any("player" in e for e in events):
        return result
    hand = result.get("hand")
    from handhistory.models import Hand

    rows = Hand.objects.filter(pk=hand) if isinstance(hand, int) else Hand.objects.none()
    seats = rows.values_list("seat_numbers", flat=True).first() or []
    return {**result, "events": [_hand_event_v1(e, list(seats)) for e in events]}


def _hand_event_v1(event: dict[str, Any], seat_numbers: list[int]) -> dict[str, Any]:
    """A hand event of an old update: the seat stays, the engine index goes; winners were
    engine indexes."""
    data = {k: v for k, v in event.items() if k != "player"}
    if data.get("type") in ("HandStarted", "HandEnded"):
        data["seats"] = list(seat_numbers)
    if data.get("type") == "PotAwarded":
        data["winners"] = [
            seat_numbers[w] if isinstance(w, int) and 0 <= w < len(seat_numbers) else None
            for w in data.get("winners") or ()
        ]
    return data


def _seat_row_v1(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k not in ("player", "player_id")}
    return {**out, "user_id": row.get("player_id"), "username": row.get("player")}
