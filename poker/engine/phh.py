"""PHH, the poker hand history notation: read, replay and write hands (NT, FT, PO, NS).

PHH files are TOML. Reading keeps money exact: every amount of a file (stakes, stacks and
``cbr`` amounts) is scaled by ``10**d``, ``d`` being the most decimals any amount has, and
converted through :class:`~decimal.Decimal` to integer chips, never through floats; stacks
are reported back in the file's own units with :func:`to_file_units`.

Replaying drives the ordinary engine commands: ``d dh p1 AcKd`` deals hole cards (``??``
for unknown cards), ``d db 4s5c2h`` the board, ``p1 f``/``p1 cc``/``p1 cbr 225`` decide,
``p1 sm AcKd`` shows, ``p1 sm -`` shows the known cards and ``p1 sm`` mucks. PHH lets a
player show out of the engine's showdown order, so replay does too.

Rake is not part of PHH; :func:`dumps` writes it as the user-defined fields ``_rake_bps``,
``_rake_cap`` and ``_rake_no_flop_no_drop``, which :func:`loads` reads back.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from poker.engine.betting import bet, call, check, fold, raise_to
from poker.engine.cards import format_card, parse_card
from poker.engine.commands import Result
from poker.engine.config import HandConfig, RakeConfig
from poker.engine.dealing import deal_board, deal_hole
from poker.engine.errors import EngineError
from poker.engine.events import (
    UNKNOWN_CARD,
    BetPlaced,
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    RaisedTo,
)
from poker.engine.game import start_hand
from poker.engine.showdown import muck, show
from poker.engine.state import SHOWDOWN, HandState
from poker.engine.variants import get_variant

SUPPORTED_VARIANTS = ("NT", "FT", "PO", "NS")
_AMOUNT_FIELDS = ("antes", "blinds_or_straddles", "starting_stacks", "finishing_stacks")
_STAKE_FIELDS = ("min_bet", "small_bet", "big_bet")


class PhhError(EngineError):
    """A hand history that cannot be read or replayed (with the offending line)."""


@dataclass(frozen=True, slots=True)
class PhhHand:
    """A parsed hand history in integer chips (``scale`` = ``10**d`` chips per file unit)."""

    config: HandConfig
    actions: tuple[str, ...]
    finishing_stacks: tuple[int, ...] | None
    scale: int = 1
    fields: dict[str, Any] = field(default_factory=dict)


def _decimals(value: Decimal | int) -> int:
    if isinstance(value, int):
        return 0
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def _cbr_amounts(actions: Iterable[str]) -> list[Decimal]:
    out = []
    for action in actions:
        words = _words(action)
        if len(words) == 3 and words[1] == "cbr":
            out.append(_decimal(words[2], action))
    return out


def _decimal(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except ArithmeticError:
        raise PhhError(
            code="phh_bad_amount", message=f"{text!r} is not an amount in {where!r}"
        ) from None
    if not value.is_finite() or value < 0:
        raise PhhError(code="phh_bad_amount", message=f"{text!r} is not an amount in {where!r}")
    return value


def _scaled(value: Decimal | int, scale: int, name: str) -> int:
    exact = Decimal(value) * scale
    if exact != exact.to_integral_value() or exact < 0:
        raise PhhError(code="phh_bad_amount", message=f"{name} {value} is not a chip amount")
    return int(exact)


def _words(action: str) -> list[str]:
    return action.split("#", 1)[0].split()


def loads(text: str) -> PhhHand:
    """Parse one PHH hand (TOML text) into integer chips.

    >>> hand = loads('''
    ... variant = "NT"
    ... antes = [0, 0]
    ... blinds_or_straddles = [0.5, 1]
    ... min_bet = 1
    ... starting_stacks = [100.25, 100]
    ... actions = ["d dh p1 AsKs", "d dh p2 ????", "p2 f"]
    ... ''')
    >>> hand.scale, hand.config.starting_stacks, hand.config.blinds_or_straddles
    (100, (10025, 10000), (50, 100))
    """
    return parse(_toml(text))


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(code="phh_bad_toml", message=f"not valid TOML: {exc}") from None


def loads_all(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The hands of a ``.phhs`` document, which holds one TOML table per hand (``[1]``,
    ``[2]``, ...): each table's name and fields, in file order. :func:`parse` reads one, so
    a broken hand does not hide the others.

    >>> [(name, hand["variant"]) for name, hand in loads_all('[1]\\nvariant = "NT"\\n')]
    [('1', 'NT')]
    """
    data = _toml(text)
    for name, value in data.items():
        if not isinstance(value, dict):
            raise PhhError(
                code="phh_bad_phhs",
                message=f"a .phhs document holds only hands ([1], [2], ...): {name!r} is a field",
            )
    return list(data.items())


def parse(data: dict[str, Any]) -> PhhHand:
    """One hand from its TOML fields (as :func:`loads` after reading the text)."""
    variant = data.get("variant")
    if variant not in SUPPORTED_VARIANTS:
        raise PhhError(
            code="phh_unsupported_variant",
            message=f"variant {variant!r} is not supported (supported: {', '.join(SUPPORTED_VARIANTS)})",
        )
    actions = tuple(str(a) for a in data.get("actions", ()))
    amounts: list[Decimal | int] = []
    for name in _AMOUNT_FIELDS:
        amounts.extend(data.get(name) or ())
    amounts.extend(data[name] for name in _STAKE_FIELDS if name in data)
    amounts.extend(_cbr_amounts(actions))
    scale = 10 ** max((_decimals(a) for a in amounts), default=0)
    stacks = tuple(_scaled(v, scale, "starting stack") for v in data.get("starting_stacks", ()))
    n = len(stacks)

    def per_player(name: str) -> tuple[int, ...]:
        values = data.get(name) or [0] * n
        if isinstance(values, int | Decimal):
            values = [values] * n
        return tuple(_scaled(v, scale, name) for v in values)

    finishing = data.get("finishing_stacks")
    rake = RakeConfig(
        bps=int(data.get("_rake_bps", 0)),
        cap=_scaled(data.get("_rake_cap", 0), scale, "_rake_cap"),
        no_flop_no_drop=bool(data.get("_rake_no_flop_no_drop", True)),
    )
    try:
        config = HandConfig(
            variant=variant,
            starting_stacks=stacks,
            antes=per_player("antes"),
            blinds_or_straddles=per_player("blinds_or_straddles"),
            min_bet=_scaled(data.get("min_bet", 0), scale, "min_bet"),
            small_bet=_scaled(data.get("small_bet", 0), scale, "small_bet"),
            big_bet=_scaled(data.get("big_bet", 0), scale, "big_bet"),
            ante_trimming=bool(data.get("ante_trimming_status", False)),
            rake=rake,
        )
    except EngineError as exc:
        raise PhhError(code=exc.code, message=exc.message, extra=exc.extra) from None
    return PhhHand(
        config=config,
        actions=actions,
        finishing_stacks=(
            None
            if finishing is None
            else tuple(_scaled(v, scale, "finishing stack") for v in finishing)
        ),
        scale=scale,
        fields=data,
    )


def load(path: str | Path) -> PhhHand:
    """Read and parse a ``.phh`` file."""
    return loads(Path(path).read_text(encoding="utf-8"))


def _cards(text: str) -> tuple[int, ...]:
    compact = "".join(text.split())
    return tuple(
        UNKNOWN_CARD if compact[i : i + 2] == "??" else parse_card(compact[i : i + 2])
        for i in range(0, len(compact), 2)
    )


def _player(label: str, state: HandState) -> int:
    if label[:1] != "p" or not label[1:].isdigit():
        raise PhhError(code="phh_bad_action", message=f"{label!r} is not a player label")
    player = int(label[1:]) - 1
    if not 0 <= player < state.player_count:
        raise PhhError(code="phh_bad_action", message=f"no player {label} in this hand")
    return player


def _showdown(state: HandState, player: int, cards: Sequence[int] | None, shows: bool) -> Result:
    """PHH names who shows, possibly out of the engine's order: let that player go first."""
    queue = state.showdown_queue
    if state.phase == SHOWDOWN and player in queue and queue[0] != player:
        state = state.copy()
        state.showdown_queue = (player, *(p for p in queue if p != player))
    return show(state, player, cards) if shows else muck(state, player)


def apply_action(state: HandState, action: str, scale: int = 1) -> Result:
    """Play one PHH action line on ``state``; amounts are in file units times ``scale``."""
    words = _words(action)
    match words:
        case ["d", "dh", label, cards]:
            return deal_hole(state, _player(label, state), _cards(cards))
        case ["d", "db", cards]:
            return deal_board(state, _cards(cards))
        case [label, "f"]:
            return fold(state, _player(label, state))
        case [label, "cc"]:
            player = _player(label, state)
            owed = max(state.bets) - state.bets[player]
            return call(state, player) if owed else check(state, player)
        case [label, "cbr", amount]:
            player = _player(label, state)
            to = _scaled(_decimal(amount, action), scale, "cbr amount")
            return raise_to(state, player, to) if max(state.bets) else bet(state, player, to)
        case [label, "sm"]:
            return _showdown(state, _player(label, state), None, False)
        case [label, "sm", "-"]:
            return _showdown(state, _player(label, state), None, True)
        case [label, "sm", cards]:
            return _showdown(state, _player(label, state), _cards(cards), True)
        case []:
            return state, []
    raise PhhError(code="phh_bad_action", message=f"unsupported PHH action {action!r}")


def replay_hand(hand: PhhHand) -> tuple[HandState, list[Event]]:
    """Play a parsed hand through the engine; raises :class:`PhhError` naming the line."""
    state, events = start_hand(hand.config)
    for number, action in enumerate(hand.actions, 1):
        try:
            state, more = apply_action(state, action, hand.scale)
        except EngineError as exc:
            raise PhhError(
                code=exc.code,
                message=f"action {number} {action!r}: {exc.message}",
                extra={**exc.extra, "action": action, "index": number},
            ) from None
        events.extend(more)
    if not state.is_over:
        raise PhhError(
            code="phh_incomplete_hand",
            message=f"the hand is not over after the last action (phase {state.phase})",
            extra={"phase": state.phase},
        )
    return state, events


def to_file_units(chips: int, scale: int) -> int | Decimal:
    """Chips back in the file's units: an int when whole, else an exact Decimal.

    >>> to_file_units(125945025, 100), to_file_units(500, 100)
    (Decimal('1259450.25'), 5)
    """
    value = Decimal(chips) / scale
    return int(value) if value == value.to_integral_value() else value


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


#: Each card's text, and ``??`` for an unknown card (one lookup per card).
_CARD_TEXT: dict[int, str] = {UNKNOWN_CARD: "??", **{c: format_card(c) for c in range(52)}}


def _card_text(cards: Sequence[int]) -> str:
    try:
        return "".join([_CARD_TEXT[c] for c in cards])
    except KeyError:
        # Not a card: format_card raises the typed error naming it.
        return "".join("??" if c == UNKNOWN_CARD else format_card(c) for c in cards)


def _action_line(
    event: Event, shown: set[int], hide_unshown: bool, units: Callable[[int], str]
) -> str | None:
    """The PHH action line recording ``event``, or None for automatic events.

    The most frequent events first: the exports write every event of every hand.
    """
    if isinstance(event, PlayerFolded):
        return f"p{event.player + 1} f"
    if isinstance(event, PlayerChecked | PlayerCalled):
        return f"p{event.player + 1} cc"
    if isinstance(event, HoleCardsDealt):
        cards = event.cards
        if hide_unshown and event.player not in shown:
            cards = (UNKNOWN_CARD,) * len(cards)
        return f"d dh p{event.player + 1} {_card_text(cards)}"
    if isinstance(event, BetPlaced | RaisedTo):
        return f"p{event.player + 1} cbr {units(event.amount)}"
    if isinstance(event, BoardDealt):
        return f"d db {_card_text(event.cards)}"
    if isinstance(event, CardsShown):
        return f"p{event.player + 1} sm {_card_text(event.cards)}"
    if isinstance(event, CardsMucked):
        return f"p{event.player + 1} sm"
    return None


def _amounts(values: Iterable[int], units: Callable[[int], str]) -> str:
    return "[" + ", ".join(map(units, values)) + "]"


def dumps(events: Sequence[Event], *, hide_unshown: bool = False, scale: int = 1) -> str:
    """Write a hand played by the engine as PHH.

    ``hide_unshown`` writes ``????`` for hole cards never shown (a public export); the
    default writes every card (a complete, server-side record). ``scale`` converts chips
    to the written units (chips / scale).
    """
    started = events[0]
    if not isinstance(started, HandStarted):
        raise PhhError(code="phh_not_a_hand", message="the first event must be HandStarted")
    # The engine validated this setup when it started the hand: read it as recorded.
    game = get_variant(started.variant)
    shown = {e.player for e in events if isinstance(e, CardsShown)}

    def scaled(chips: int) -> str:
        return str(to_file_units(chips, scale))

    # Whole chips are written as they are (what to_file_units gives for scale 1).
    units: Callable[[int], str] = str if scale == 1 else scaled
    lines = [
        f"variant = {_toml_value(started.variant)}",
        f"ante_trimming_status = {_toml_value(started.ante_trimming)}",
        f"antes = {_amounts(started.antes, units)}",
        f"blinds_or_straddles = {_amounts(started.blinds_or_straddles, units)}",
    ]
    for name in game.stakes:
        lines.append(f"{name} = {units(getattr(started, name))}")
    lines.append(f"starting_stacks = {_amounts(started.starting_stacks, units)}")
    lines.append("actions = [")
    final: tuple[int, ...] | None = None
    for event in events[1:]:
        line = _action_line(event, shown, hide_unshown, units)
        if line:
            # Action lines are made of labels, digits and card text: nothing to escape.
            lines.append(f'  "{line}",')
        elif isinstance(event, HandEnded):
            final = event.final_stacks
    lines.append("]")
    if final is not None:
        lines.append(f"finishing_stacks = {_amounts(final, units)}")
    if started.rake_bps:
        lines.append(f"_rake_bps = {started.rake_bps}")
        lines.append(f"_rake_cap = {units(started.rake_cap)}")
        lines.append(f"_rake_no_flop_no_drop = {_toml_value(started.rake_no_flop_no_drop)}")
    return "\n".join(lines) + "\n"
