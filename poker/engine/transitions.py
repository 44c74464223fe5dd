"""``apply(state, event)``: the one place where state changes, shared by live play and replay.

Commands validate and produce events; the engine then applies those events with the
functions here, so replaying a hand's events runs exactly the code that played it. The
deterministic consequences of an event (who acts next, whether the betting round closed,
whether the hand goes to showdown) are computed here too, never stored in events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from poker.engine.errors import InvalidEvent
from poker.engine.events import (
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
from poker.engine.seeding import deck_for
from poker.engine.start import start_state
from poker.engine.state import (
    AWARDING,
    BETTING,
    DEALING_BOARD,
    DEALING_HOLE,
    ENDED,
    POSTING,
    RETURNING,
    RUNOUT,
    SHOWDOWN,
    HandState,
)

LAST_STREET = 3


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


def _bad(event: Event, state: HandState, why: str) -> InvalidEvent:
    return InvalidEvent(
        code="event_not_applicable",
        message=f"{type(event).__name__} cannot be applied: {why} (phase {state.phase})",
        extra={"event": event.to_dict()},
    )


# --- forced bets and dealing -------------------------------------------------------------


def _forced(s: HandState, ev: AntePosted | BlindPosted, kind: str) -> None:
    if s.phase != POSTING or s.forced_plan[0] != (kind, ev.player, ev.amount):
        raise _bad(ev, s, f"the next forced bet is {s.forced_plan[:1]}")
    p, amount = ev.player, ev.amount
    s.stacks = _set(s.stacks, p, s.stacks[p] - amount)
    s.committed = _set(s.committed, p, s.committed[p] + amount)
    if kind == "ante":
        s.antes_posted = _set(s.antes_posted, p, s.antes_posted[p] + amount)
    else:
        s.bets = _set(s.bets, p, s.bets[p] + amount)
    s.forced_plan = s.forced_plan[1:]
    if not s.forced_plan:
        s.phase = DEALING_HOLE


def _ante_posted(s: HandState, ev: AntePosted) -> None:
    _forced(s, ev, "ante")


def _blind_posted(s: HandState, ev: BlindPosted) -> None:
    _forced(s, ev, "blind")


def _hole_dealt(s: HandState, ev: HoleCardsDealt) -> None:
    p = ev.player
    if s.phase != DEALING_HOLE or s.dealt[p]:
        raise _bad(ev, s, f"player {p} cannot receive hole cards now")
    s.hole_cards = _set(s.hole_cards, p, ev.cards)
    s.dealt = _set(s.dealt, p, True)
    s.deck_pos += len(ev.cards)
    if all(s.dealt):
        _begin_round(s)


def _board_dealt(s: HandState, ev: BoardDealt) -> None:
    if s.phase not in (DEALING_BOARD, RUNOUT) or ev.street != s.street + 1:
        raise _bad(ev, s, f"street {ev.street} is not the next street")
    s.board = s.board + ev.cards
    s.street = ev.street
    s.deck_pos += len(ev.cards)
    if s.phase == DEALING_BOARD:
        _begin_round(s)
    elif s.street == LAST_STREET:
        s.phase = AWARDING


# --- betting ----------------------------------------------------------------------------


def _begin_round(s: HandState) -> None:
    n = s.player_count
    bets = s.bets
    if s.street == 0:
        # The player after the largest blind or straddle opens (ties: the later one).
        s.opener = (max(range(n), key=lambda i: (bets[i], i)) + 1) % n
        s.raise_count = 1 if any(bets) else 0
    else:
        s.opener = 0
        s.raise_count = 0
    s.full_raise = 0
    s.acted = 0
    s.allin_sum = 0
    s.allin_pending = False
    s.phase = BETTING
    stacks, active = s.stacks, s.active
    totals = sorted(stacks[i] + bets[i] for i in range(n) if active[i])
    second = totals[-2] if len(totals) > 1 else 0
    order = [*range(s.opener, n), *range(s.opener)]
    # Players whose chips cannot be matched by anyone have nothing to decide.
    s.queue = tuple(i for i in order if active[i] and stacks[i] and second > bets[i])
    q = s.queue
    if not q or (len(q) == 1 and bets[q[0]] >= max(bets)):
        _close_round(s)


def _pop_actor(s: HandState, ev: Event, player: int) -> None:
    if s.phase != BETTING or not s.queue or s.queue[0] != player:
        raise _bad(ev, s, f"player {player} is not the actor")
    s.queue = s.queue[1:]
    s.acted |= 1 << player


def _after_action(s: HandState) -> None:
    if not s.queue or sum(s.active) <= 1:
        _close_round(s)


def _folded(s: HandState, ev: PlayerFolded) -> None:
    _pop_actor(s, ev, ev.player)
    s.active = _set(s.active, ev.player, False)
    _after_action(s)


def _checked(s: HandState, ev: PlayerChecked) -> None:
    _pop_actor(s, ev, ev.player)
    _after_action(s)


def _called(s: HandState, ev: PlayerCalled) -> None:
    p, amount = ev.player, ev.amount
    _pop_actor(s, ev, p)
    s.stacks = _set(s.stacks, p, s.stacks[p] - amount)
    s.bets = _set(s.bets, p, s.bets[p] + amount)
    s.committed = _set(s.committed, p, s.committed[p] + amount)
    _after_action(s)


def _raised(s: HandState, ev: BetPlaced | RaisedTo) -> None:
    p, to = ev.player, ev.amount
    if s.phase != BETTING or not s.queue or s.queue[0] != p:
        raise _bad(ev, s, f"player {p} is not the actor")
    bets = s.bets
    increment = to - max(bets)
    delta = to - bets[p]
    stacks = s.stacks = _set(s.stacks, p, s.stacks[p] - delta)
    s.bets = _set(bets, p, to)
    s.committed = _set(s.committed, p, s.committed[p] + delta)
    n = s.player_count
    active = s.active
    order = (*range(p + 1, n), *range(p))
    s.queue = tuple(i for i in order if active[i] and stacks[i])
    s.opener = p
    if increment >= s.full_raise:
        s.acted = 1 << p
        s.full_raise = increment
    else:
        s.acted |= 1 << p
    s.raise_count += 1
    if stacks[p]:
        s.allin_sum = 0
        s.allin_pending = False
    else:
        s.allin_sum += increment
        s.allin_pending = True
    _after_action(s)


def _close_round(s: HandState) -> None:
    bets = s.bets
    top = max(bets)
    if top:
        cutoff = sorted(bets)[-2]
        if top > cutoff:
            s.pending_return = (bets.index(top), top - cutoff)
            s.phase = RETURNING
            s.queue = ()
            return
    _end_round(s)


def _returned(s: HandState, ev: UncalledBetReturned) -> None:
    if s.phase != RETURNING or s.pending_return != (ev.player, ev.amount):
        raise _bad(ev, s, f"the uncalled bet is {s.pending_return}")
    p, amount = ev.player, ev.amount
    s.stacks = _set(s.stacks, p, s.stacks[p] + amount)
    s.committed = _set(s.committed, p, s.committed[p] - amount)
    s.pending_return = None
    _end_round(s)


def _end_round(s: HandState) -> None:
    n = s.player_count
    s.bets = (0,) * n
    s.queue = ()
    active = s.active
    if sum(active) == 1:
        s.phase = AWARDING
    elif s.street == LAST_STREET or sum(1 for i in range(n) if active[i] and s.stacks[i]) <= 1:
        order = (*range(s.opener, n), *range(s.opener))
        s.showdown_queue = tuple(i for i in order if active[i] and not s.shown[i])
        s.phase = SHOWDOWN
        if not s.showdown_queue:
            _after_showdown(s)
    else:
        s.phase = DEALING_BOARD


# --- showdown and settlement ------------------------------------------------------------


def _showdown_step(s: HandState, ev: Event, player: int) -> None:
    if s.phase != SHOWDOWN or player not in s.showdown_queue:
        raise _bad(ev, s, f"player {player} is not waiting to show or muck")
    s.showdown_queue = tuple(i for i in s.showdown_queue if i != player)


def _after_showdown(s: HandState) -> None:
    if sum(s.active) >= 2 and s.street < LAST_STREET:
        s.phase = RUNOUT
    else:
        s.phase = AWARDING


def _shown(s: HandState, ev: CardsShown) -> None:
    _showdown_step(s, ev, ev.player)
    s.hole_cards = _set(s.hole_cards, ev.player, ev.cards)
    s.shown = _set(s.shown, ev.player, True)
    if not s.showdown_queue:
        _after_showdown(s)


def _mucked(s: HandState, ev: CardsMucked) -> None:
    _showdown_step(s, ev, ev.player)
    s.active = _set(s.active, ev.player, False)
    s.mucked = _set(s.mucked, ev.player, True)
    if sum(s.active) == 1:
        s.showdown_queue = ()
    if not s.showdown_queue:
        _after_showdown(s)


def _rake_taken(s: HandState, ev: RakeTaken) -> None:
    if s.phase != AWARDING:
        raise _bad(ev, s, "pots are not being settled")
    s.rake = ev.amount
    s.rake_by_pot = ev.amounts


def _pot_awarded(s: HandState, ev: PotAwarded) -> None:
    if s.phase != AWARDING:
        raise _bad(ev, s, "pots are not being settled")
    stacks, won = s.stacks, s.won
    for p, amount in zip(ev.winners, ev.amounts, strict=True):
        stacks = _set(stacks, p, stacks[p] + amount)
        won = _set(won, p, won[p] + amount)
    s.stacks, s.won = stacks, won


def _hand_ended(s: HandState, ev: HandEnded) -> None:
    if s.phase != AWARDING or ev.final_stacks != s.stacks:
        raise _bad(ev, s, f"final stacks {ev.final_stacks} differ from {s.stacks}")
    s.phase = ENDED
    s.deck = ()  # nothing left to deal: the secret order leaves the state


APPLIERS: dict[type[Event], Callable[[HandState, Any], None]] = {
    AntePosted: _ante_posted,
    BlindPosted: _blind_posted,
    HoleCardsDealt: _hole_dealt,
    BoardDealt: _board_dealt,
    PlayerFolded: _folded,
    PlayerChecked: _checked,
    PlayerCalled: _called,
    BetPlaced: _raised,
    RaisedTo: _raised,
    UncalledBetReturned: _returned,
    CardsShown: _shown,
    CardsMucked: _mucked,
    RakeTaken: _rake_taken,
    PotAwarded: _pot_awarded,
    HandEnded: _hand_ended,
}


def apply_in_place(state: HandState, event: Event) -> None:
    """Apply ``event`` to a private copy the caller owns (the engine's fast path)."""
    if state.phase == ENDED:
        raise _bad(event, state, "the hand is over")
    applier = APPLIERS.get(type(event))
    if applier is None:
        raise _bad(event, state, "a hand has exactly one HandStarted, first")
    try:
        applier(state, event)
    except (IndexError, TypeError, ValueError) as exc:  # e.g. a player index out of range
        raise _bad(event, state, f"malformed ({exc})") from None


def apply(state: HandState | None, event: Event) -> HandState:
    """The state after ``event``; pure: ``state`` is left untouched.

    ``state`` is None only for the ``HandStarted`` event that opens a hand. Raises
    ``InvalidEvent`` for an event that does not fit the state (a corrupt stream).
    """
    if type(event) is HandStarted:
        if state is not None:
            raise _bad(event, state, "the hand has already started")
        return start_state(event, deck_for(event))
    if state is None:
        raise InvalidEvent(
            code="event_not_applicable",
            message=f"{type(event).__name__} before HandStarted",
        )
    new = state.copy()
    apply_in_place(new, event)
    return new


def replay(events: Iterable[Event]) -> HandState:
    """Fold ``apply`` over a hand's events: the live state, rebuilt.

    The result can keep playing: a hand started with a deck keeps dealing from the same
    shuffled deck, rebuilt from the SECRET seed in ``HandStarted`` (only when the hand is
    not over: recorded events already say which cards were dealt).
    """
    it = iter(events)
    first = next(it, None)
    if type(first) is not HandStarted:
        raise InvalidEvent(
            code="event_not_applicable",
            message="a hand's events start with HandStarted",
        )
    state = start_state(first, ())
    for event in it:
        apply_in_place(state, event)
    if state.phase != ENDED:
        state.deck = deck_for(first)
    return state
