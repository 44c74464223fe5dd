"""A hand as people read it: usernames, seats, positions, cards as text, and every step.

:func:`readable_hand` is a pure function of a :class:`HandRecord` and a :class:`Viewer`
(no query). It reads only ``record.seen_by(viewer)``: the events after the one privacy
rule (``poker.engine.privacy``), so it can never show a card the viewer may not see; when the
replayer shows a hand it reads there too (``sees_from_the_deal``). The steps
for the replayer come from folding those events through the engine's own ``apply``
(unknown hole cards are just cards the fold carries along), so the stacks, bets and pots
at each step are the engine's, and the last step's stacks are the settled ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from handhistory.exports.records import HandRecord, Viewer
from poker.engine.cards import format_card, format_cards
from poker.engine.config import blind_seats
from poker.engine.events import (
    UNKNOWN_CARD,
    AntePosted,
    BetPlaced,
    BlindPosted,
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
    PotAwarded,
    RaisedTo,
    RakeTaken,
    UncalledBetReturned,
)
from poker.engine.privacy import sees_from_the_deal
from poker.engine.start import start_state
from poker.engine.state import HandState
from poker.engine.transitions import apply_in_place
from poker.engine.variants import STREET_NAMES
from wallet.amounts import currency_spec, money_format

#: Seats between the big blind and the cut-off, named from the button backwards.
_LATE = ("CO", "HJ", "LJ")


def position_labels(count: int) -> tuple[str, ...]:
    """Position names for ``count`` players in engine order (left of the button first,
    the button last). Heads-up the button posts the small blind and is called BTN.

    >>> position_labels(2)
    ('BB', 'BTN')
    >>> position_labels(6)
    ('SB', 'BB', 'UTG', 'HJ', 'CO', 'BTN')
    >>> position_labels(9)
    ('SB', 'BB', 'UTG', 'UTG+1', 'UTG+2', 'LJ', 'HJ', 'CO', 'BTN')
    """
    if count <= 1:
        return ("BTN",) * count
    seats = blind_seats(count)
    names = [""] * count
    names[seats.button] = "BTN"
    names[seats.big] = "BB"
    if seats.small != seats.button:
        names[seats.small] = "SB"
    middle = [k for k, name in enumerate(names) if not name]  # after the big blind
    late = min(len(_LATE), max(0, len(middle) - 1))
    early = len(middle) - late
    between = ["UTG" if k == 0 else f"UTG+{k}" for k in range(early)]
    between += list(reversed(_LATE[:late]))
    for k, name in zip(middle, between, strict=True):
        names[k] = name
    return tuple(names)


def readable_hand(record: HandRecord, viewer: Viewer) -> dict[str, Any]:
    """``record`` as ``viewer`` may see it, in words: players, board, pots, actions, steps.

    Cards are text (``"Qh8h"``); a hand the viewer may not see is ``None``. ``steps`` is
    the state after each step of the hand (the deal counts as one step), for a replayer
    that only draws.
    """
    events = record.seen_by(viewer)
    me = None if viewer.full else record.player_index(viewer)
    names = record.usernames
    seats = record.seats
    n = len(seats)
    positions = position_labels(n)
    started = events[0]
    assert isinstance(started, HandStarted)

    hole: list[tuple[int, ...]] = [()] * n
    showed = [False] * n
    board_by_street: dict[str, str] = {}
    actions: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    pots: list[dict[str, Any]] = []
    winners: list[dict[str, Any]] = []
    rake_by_pot: tuple[int, ...] = ()
    final: tuple[int, ...] | None = None

    state = start_state(started, ())
    # An opponent's shown cards appear on the replayer from the step they were shown.
    visible = [sees_from_the_deal(i, viewer=me, staff=viewer.full) for i in range(n)]

    def shown(minor: int) -> str:  # as at the table: "€0.30", play chips "1,500"
        return money_format(minor, record.currency, chips_bare=True)

    def cards_of(i: int) -> str | None:
        return _cards(hole[i]) if visible[i] else None

    def step(kind: str, text: str, seat: int | None = None) -> None:
        steps.append(_step(state, record, kind, text, seat, cards_of, winners, rake_by_pot))

    step("start", f"Hand #{record.number} at {record.table_name}: {names[-1]} has the button")
    for k, event in enumerate(events[1:], start=1):
        street = STREET_NAMES[state.street]
        apply_in_place(state, event)
        if isinstance(event, HoleCardsDealt):
            hole[event.player] = event.cards
            if not any(isinstance(e, HoleCardsDealt) for e in events[k + 1 : k + 2]):
                step("deal", "Hole cards are dealt")
            continue
        if isinstance(event, BoardDealt):
            street = STREET_NAMES[event.street]
            board_by_street[street] = format_cards(event.cards)
            step("board", f"{street.capitalize()}: {' '.join(_split(event.cards))}")
            continue
        if isinstance(event, RakeTaken):
            rake_by_pot = event.amounts
            if event.amount:
                step("rake", f"Rake {shown(event.amount)}")
            continue
        if isinstance(event, PotAwarded):
            pots.append(_pot(event, record, rake_by_pot))
            lines = []
            for w, share in zip(event.winners, event.amounts, strict=True):
                winners.append(
                    {
                        "seat": seats[w],
                        "username": names[w],
                        "amount": share,
                        "pot": event.pot,
                        "hand": event.hand,
                    }
                )
                lines.append(f"{names[w]} wins {shown(share)}")
            label = f" from side pot {event.pot}" if event.pot else ""
            how = f" with {event.hand.replace('_', ' ')}" if event.hand else ""
            # One step per pot: a split pot's shares land in the stacks together.
            step("win", f"{', '.join(lines)}{label}{how}", seats[event.winners[0]])
            continue
        if isinstance(event, HandEnded):
            final = event.final_stacks
            continue
        if isinstance(event, CardsShown):
            hole[event.player] = event.cards
            showed[event.player] = True
            visible[event.player] = True
        action = _action(event, names, shown)
        if action is None:
            continue
        p, kind, amount, text = action
        actions.append(
            {
                "street": street,
                "seat": seats[p],
                "username": names[p],
                "kind": kind,
                "amount": amount,
                "text": text,
            }
        )
        step(kind, text, seats[p])

    starting = started.starting_stacks
    players = [
        {
            "seat": seats[i],
            "username": names[i],
            "position": positions[i],
            "starting_stack": starting[i],
            "final_stack": final[i] if final is not None else None,
            "net": final[i] - starting[i] if final is not None else None,
            "cards": _cards(hole[i]),
            "showed": showed[i],
            "won": state.won[i],
        }
        for i in range(n)
    ]
    return {
        "variant": started.variant,
        "table_name": record.table_name,
        "max_seats": record.max_seats,
        "currency": record.currency,
        "currency_spec": currency_spec(record.currency),
        "button_seat": record.button_seat,
        "players": players,
        "board": format_cards(state.board),
        "board_by_street": board_by_street,
        "rake": state.rake,
        "total_pot": state.total_pot,
        "pots": pots,
        "actions": actions,
        "steps": steps,
    }


def _cards(cards: Sequence[int]) -> str | None:
    """Text of cards the viewer may see; None when any is unknown (or none were dealt)."""
    if not cards or UNKNOWN_CARD in cards:
        return None
    return format_cards(cards)


def _split(cards: Sequence[int]) -> list[str]:
    return [format_card(c) for c in cards]


def _action(
    event: Event, names: Sequence[str], shown: Callable[[int], str]
) -> tuple[int, str, int | None, str] | None:
    """(player, kind, amount, sentence) of a player's event, or None for other events; the
    sentence writes amounts with ``shown``."""
    if isinstance(event, AntePosted):
        return (
            event.player,
            "ante",
            event.amount,
            f"{names[event.player]} posts ante {shown(event.amount)}",
        )
    if isinstance(event, BlindPosted):
        return (
            event.player,
            "blind",
            event.amount,
            f"{names[event.player]} posts blind {shown(event.amount)}",
        )
    if isinstance(event, PlayerFolded):
        return event.player, "fold", None, f"{names[event.player]} folds"
    if isinstance(event, PlayerChecked):
        return event.player, "check", None, f"{names[event.player]} checks"
    if isinstance(event, PlayerCalled):
        who, what = names[event.player], shown(event.amount)
        return event.player, "call", event.amount, f"{who} calls {what}"
    if isinstance(event, BetPlaced):
        who, what = names[event.player], shown(event.amount)
        return event.player, "bet", event.amount, f"{who} bets {what}"
    if isinstance(event, RaisedTo):
        who, what = names[event.player], shown(event.amount)
        return event.player, "raise", event.amount, f"{who} raises to {what}"
    if isinstance(event, UncalledBetReturned):
        who, what = names[event.player], shown(event.amount)
        return event.player, "uncalled", event.amount, f"Uncalled {what} returned to {who}"
    if isinstance(event, CardsShown):
        shown = " ".join(_split(event.cards))
        return event.player, "show", None, f"{names[event.player]} shows {shown}"
    if isinstance(event, CardsMucked):
        return event.player, "muck", None, f"{names[event.player]} mucks"
    return None


def _pot(event: PotAwarded, record: HandRecord, rake_by_pot: tuple[int, ...]) -> dict[str, Any]:
    rake = rake_by_pot[event.pot] if event.pot < len(rake_by_pot) else 0
    return {
        "pot": event.pot,
        "amount": sum(event.amounts) + rake,
        "rake": rake,
        "hand": event.hand,
        "winners": [
            {"seat": record.seats[w], "username": record.usernames[w], "amount": a}
            for w, a in zip(event.winners, event.amounts, strict=True)
        ],
    }


def _step(
    state: HandState,
    record: HandRecord,
    kind: str,
    text: str,
    seat: int | None,
    cards_of: Callable[[int], str | None],
    winners: list[dict[str, Any]],
    rake_by_pot: tuple[int, ...],
) -> dict[str, Any]:
    """What the table looks like now. ``pot`` is every chip in the middle, bets included,
    less what the pots already paid out and the rake."""
    paid = sum(w["amount"] for w in winners) + (state.rake if rake_by_pot else 0)
    return {
        "kind": kind,
        "text": text,
        "seat": seat,
        "street": state.street_name,
        "board": format_cards(state.board),
        "pot": state.total_pot - paid,
        "pots": [
            {"amount": p.amount, "eligible_seats": [record.seats[e] for e in p.eligible]}
            for p in (state.pots if not winners and not rake_by_pot else ())
        ],
        "rake": state.rake,
        "actor_seat": record.seats[state.actor] if state.actor is not None else None,
        "seats": [
            {
                "seat": record.seats[i],
                "stack": state.stacks[i],
                "bet": state.bets[i],
                "folded": not state.active[i],
                "all_in": state.all_in[i],
                "cards": cards_of(i),
            }
            for i in range(len(record.seats))
        ],
        "winners": list(winners),
    }
