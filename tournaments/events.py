"""The tournament stream's events (``tournament-<id>`` in the event store).

Frozen, keyword-only dataclasses, one per type (the class name is the stored ``type``),
written by :func:`tournaments.services` only, hash-chained by the store like table
streams and checked by ``verify_event_store`` through :func:`tournament_event_problem`.
Play adds the director's events (``tournaments.director``): started (the seat draw),
busted (with the places), bounty paid, player moved, table broken, final table formed,
prize paid, finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from handhistory.store import NewEvent

VERSION = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class TournamentEvent:
    VERSION: ClassVar[int] = VERSION

    def new_event(self) -> NewEvent:
        return NewEvent(type=type(self).__name__, version=self.VERSION, payload=asdict(self))


@dataclass(frozen=True, kw_only=True, slots=True)
class TournamentCreated(TournamentEvent):
    """The structure as created (amounts in minor units)."""

    name: str
    kind: str
    variant: str
    currency: str
    buy_in: int
    fee: int
    bounty: int
    starting_stack: int
    seats_per_table: int
    min_players: int
    max_players: int
    starts_at: str | None
    levels: list[dict[str, Any]]
    breaks: list[dict[str, Any]]
    late_registration_levels: int
    rebuy: dict[str, Any] | None
    add_on: dict[str, Any] | None
    guarantee: int
    payouts: list[str] | None
    action_seconds: int
    staff_id: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerRegistered(TournamentEvent):
    """Paid: ``buy_in`` (of which ``bounty``) and ``fee``."""

    user_id: int
    username: str
    entry: int
    buy_in: int
    fee: int
    bounty: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerUnregistered(TournamentEvent):
    """Before the start; ``refunded`` is all the entry paid."""

    user_id: int
    username: str
    entry: int
    refunded: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TournamentCancelled(TournamentEvent):
    """By staff before the start, or at a scheduled start with too few players
    (``staff_id`` null): every live entry refunded in full."""

    reason: str
    staff_id: int | None
    refunded_entries: int
    refunded: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TournamentStarted(TournamentEvent):
    """The seat draw: per table its number, its poker table id and seat -> user id (the
    seats as text, as JSON keys are), every player with ``starting_stack``."""

    tables: list[dict[str, Any]]
    starting_stack: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerBusted(TournamentEvent):
    """Out in ``hand`` at ``place`` (``place`` to ``last_place`` when sharing them with
    players busting with an equal starting stack in the same hand)."""

    user_id: int
    place: int
    last_place: int
    hand: int


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerMoved(TournamentEvent):
    """Balancing, a table broken or the final table's draw: the player goes from seat
    ``from_seat`` of table ``from_table`` to seat ``to_seat`` of ``to_table`` (poker
    table ids), with their chips. ``hand``: the hand whose end planned it (null when
    planned once earlier moves were made)."""

    user_id: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    hand: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class TableBroken(TournamentEvent):
    """The table closes: its players are moved to the others (``PlayerMoved``)."""

    table: int
    hand: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class FinalTableFormed(TournamentEvent):
    """The players left fit on ``table``: every other table broken into it, every seat
    drawn anew."""

    table: int
    hand: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class PrizePaid(TournamentEvent):
    """``amount`` from the prize pool to the player's cash for ``place``."""

    user_id: int
    place: int
    amount: int


@dataclass(frozen=True, kw_only=True, slots=True)
class BountyPaid(TournamentEvent):
    """``amount`` from the bounty account to the player's cash for busting ``busted`` in
    ``hand`` (a share of the bounty on a split pot); at the finish, the winner's own
    bounty to the winner (``busted`` == ``user_id``, ``hand`` null)."""

    user_id: int
    busted: int
    amount: int
    hand: int | None


@dataclass(frozen=True, kw_only=True, slots=True)
class TournamentFinished(TournamentEvent):
    """One player left: the winner (place 1); ``prize_pool`` paid out whole."""

    winner: int
    prize_pool: int


EVENT_TYPES: dict[str, type[TournamentEvent]] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        PlayerRegistered,
        PlayerUnregistered,
        TournamentCancelled,
        TournamentStarted,
        PlayerBusted,
        PlayerMoved,
        TableBroken,
        FinalTableFormed,
        PrizePaid,
        BountyPaid,
        TournamentFinished,
    )
}


def tournament_event_problem(type_: str, version: int, payload: Mapping[str, Any]) -> str | None:
    """Why a stored tournament event cannot be read (None: it can): the reader the event
    store's check runs on ``tournament-`` streams."""
    cls = EVENT_TYPES.get(type_)
    if cls is None:
        return f"unknown tournament event type {type_!r}"
    if version != cls.VERSION:
        return f"{type_} version {version} is not {cls.VERSION}"
    expected = {f.name for f in fields(cls)}
    if set(payload) != expected:
        return f"{type_} fields {sorted(payload)} are not {sorted(expected)}"
    return None
