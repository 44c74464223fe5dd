"""Hand events: the only facts the engine records; a hand's state is a fold over them.

Events are frozen, keyword-only, slotted dataclasses named in the past tense. Each class has
a schema ``version`` and serialises to a dict of plain JSON values (ints, strs, bools and
lists) tagged with ``type`` and ``version``; :func:`event_from_dict` reads it back.

Conventions shared by every event:

* ``player`` is the PHH player index: 0 is the first seat left of the button, the button
  is the last player.
* Cards are the integers of :mod:`poker.engine.cards`; ``-1`` is a card dealt face down
  whose value is unknown (hand histories with ``????``).
* Amounts are integer chips (minor units). Bet and raise amounts are *to* totals for the
  street; call amounts are the chips added.

Visibility: :func:`private_to` names the one player who may see an event (hole cards);
:func:`redact` blanks the SECRET fields of ``HandStarted`` (server seed, fixed deck) for any
public view until ``HandEnded`` reveals the seed.

>>> ev = PlayerCalled(player=2, amount=100)
>>> event_from_dict(ev.to_dict()) == ev
True
>>> ev.to_dict()
{'type': 'PlayerCalled', 'version': 1, 'player': 2, 'amount': 100}
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from poker.engine.errors import InvalidEvent

UNKNOWN_CARD = -1


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of all hand events; subclasses set ``version`` and add fields."""

    version: ClassVar[int] = 1

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form, tagged with ``type`` and ``version`` for :func:`event_from_dict`."""
        out: dict[str, Any] = {"type": type(self).__name__, "version": self.version}
        for name in _FIELDS[type(self)]:
            out[name] = _to_json(getattr(self, name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Rebuild an event of this class from :meth:`to_dict` output."""
        if data.get("type", cls.__name__) != cls.__name__:
            raise InvalidEvent(
                code="event_type_mismatch",
                message=f"{data.get('type')!r} data given to {cls.__name__}.from_dict",
            )
        version = data.get("version", cls.version)
        if version != cls.version:
            raise InvalidEvent(
                code="event_version_unsupported",
                message=f"{cls.__name__} version {version} is not readable (this code reads {cls.version})",
                extra={"type": cls.__name__, "version": version},
            )
        names = _FIELDS[cls]
        try:
            kwargs = {name: _from_json(data[name]) for name in names}
        except KeyError as exc:
            raise InvalidEvent(
                code="event_field_missing",
                message=f"{cls.__name__} is missing field {exc.args[0]!r}",
            ) from None
        return cls(**kwargs)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStarted(Event):
    """Everything needed to rebuild and continue the hand.

    ``server_seed`` (hex) and ``fixed_deck`` are SECRET: they determine every card still to
    come. Persist them, but :func:`redact` them from every public view until the hand has
    ended (``HandEnded.server_seed`` reveals the seed). ``deck_commitment`` is the public
    sha256 of the seed, published before any card is seen. Forced bets are given exactly as
    configured (PHH order; with two players PHH reverses blinds and antes, so does the engine).
    """

    variant: str
    starting_stacks: tuple[int, ...]
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    min_bet: int
    small_bet: int
    big_bet: int
    ante_trimming: bool
    rake_bps: int
    rake_cap: int
    rake_no_flop_no_drop: bool
    deck_commitment: str
    server_seed: str
    client_seeds: tuple[str, ...]
    nonce: int
    fixed_deck: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AntePosted(Event):
    """An ante went in (already trimmed when ante trimming applies)."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BlindPosted(Event):
    """A blind or straddle went in; ``amount`` may be short for a player with fewer chips."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HoleCardsDealt(Event):
    """A player's hole cards. PRIVATE to ``player`` (see :func:`private_to`)."""

    player: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardDealt(Event):
    """Community cards for ``street`` (1 flop, 2 turn, 3 river). Public."""

    street: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerFolded(Event):
    """The player gave up the hand; their chips stay in the pot."""

    player: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerChecked(Event):
    """The player passed without adding chips."""

    player: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerCalled(Event):
    """The player added ``amount`` chips to match the largest bet (or went all-in trying)."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BetPlaced(Event):
    """First bet of a street; ``amount`` is the player's street total after it."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RaisedTo(Event):
    """A raise; ``amount`` is the player's street total after it."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class UncalledBetReturned(Event):
    """The part of the largest bet nobody matched went back to its owner."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsShown(Event):
    """Hole cards turned face up at showdown. Public."""

    player: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsMucked(Event):
    """The player threw the hand away at showdown, giving up any claim to the pots."""

    player: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RakeTaken(Event):
    """House rake, ``amounts[k]`` taken from pot ``k`` before the pots are awarded."""

    amount: int
    amounts: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PotAwarded(Event):
    """Pot ``pot`` (0 main, then side pots) went to ``winners`` (``amounts`` each).

    ``hand`` names the winning category (e.g. ``"flush"``), or is empty when uncontested.
    """

    pot: int
    winners: tuple[int, ...]
    amounts: tuple[int, ...]
    hand: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEnded(Event):
    """The hand is over; ``server_seed`` reveals the seed so anyone can verify the deal."""

    final_stacks: tuple[int, ...]
    server_seed: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        HandStarted,
        AntePosted,
        BlindPosted,
        HoleCardsDealt,
        BoardDealt,
        PlayerFolded,
        PlayerChecked,
        PlayerCalled,
        BetPlaced,
        RaisedTo,
        UncalledBetReturned,
        CardsShown,
        CardsMucked,
        RakeTaken,
        PotAwarded,
        HandEnded,
    )
}
_FIELDS: dict[type[Event], tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in EVENT_TYPES.values()
}
#: Fields that must never leave the server before the hand ends.
SECRET_FIELDS: dict[type[Event], tuple[str, ...]] = {HandStarted: ("server_seed", "fixed_deck")}


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild any event from its :meth:`Event.to_dict` form, dispatching on ``type``.

    >>> event_from_dict({"type": "PlayerFolded", "version": 1, "player": 0})
    PlayerFolded(player=0)
    """
    cls = EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        raise InvalidEvent(
            code="event_type_unknown",
            message=f"unknown event type {data.get('type')!r}",
            extra={"type": data.get("type")},
        )
    return cls.from_dict(data)


def private_to(event: Event) -> int | None:
    """The only player allowed to see ``event``, or None when it may be public (once redacted).

    Hole cards are private to their owner; cards shown at showdown are public.
    """
    if type(event) is HoleCardsDealt:
        return event.player
    return None


def redact(event: Event) -> Event:
    """A copy of ``event`` safe for public views: SECRET fields blanked, others unchanged.

    Use it for every event shown to players or spectators while the hand runs; keep the
    original in the event store so a restarted server can continue dealing.
    """
    secret = SECRET_FIELDS.get(type(event))
    if not secret:
        return event
    blank: dict[str, Any] = {
        name: "" if isinstance(getattr(event, name), str) else () for name in secret
    }
    return replace(event, **blank)
