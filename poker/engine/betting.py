"""Betting decisions: fold, check, call, bet, raise, each as ``can_*``/``verify_*``/command.

``verify_*`` raises :class:`IllegalAction` with a stable code; ``can_*`` answers the same
question without raising; the command (``fold``, ``check``, ``call``, ``bet``,
``raise_to``) returns ``(new_state, events)``. Bet and raise amounts are *to* totals for
the street. :func:`legal_actions` lists what the player to act may do, with amounts.

Raising follows the full-raise rule: a raise must be at least the largest bet or raise
increment of the street; an all-in for less is allowed but does not reopen the betting for
players who already acted since the last full raise (they may only call or fold), while
players yet to act may still raise.
"""

from __future__ import annotations

from typing import NamedTuple

from poker.engine.commands import Result, check_player, context, run
from poker.engine.errors import IllegalAction
from poker.engine.events import BetPlaced, PlayerCalled, PlayerChecked, PlayerFolded, RaisedTo
from poker.engine.state import BETTING, HandState

FOLD, CHECK, CALL, BET, RAISE = "fold", "check", "call", "bet", "raise"
ACTIONS: tuple[str, ...] = (FOLD, CHECK, CALL, BET, RAISE)


class LegalActions(NamedTuple):
    """What the player to act may do now.

    ``call_amount`` is the chips a call adds (0 when checking is possible); ``min_to`` and
    ``max_to`` bound the *to* amount of ``bet``/``raise`` (None when neither is legal).
    """

    actor: int
    actions: tuple[str, ...]
    call_amount: int
    min_to: int | None
    max_to: int | None


def _check_actor(state: HandState, player: object, action: str) -> int:
    p = check_player(state, player, action)
    if state.phase != BETTING:
        raise IllegalAction(
            code="not_betting",
            message=f"{action} refused: no betting decision is pending (phase {state.phase})",
            extra={"phase": state.phase},
        )
    if not state.active[p]:
        raise IllegalAction(
            code="player_folded",
            message=f"{action} refused: {{player}} is no longer in the hand "
            f"({{hand}}{state.street_name})",
            extra={"player": p},
            players={"player": p},
        )
    if not state.stacks[p]:
        raise IllegalAction(
            code="player_all_in",
            message=f"{action} refused: {{player}} is all-in and cannot act "
            f"({{hand}}{state.street_name})",
            extra={"player": p},
            players={"player": p},
        )
    actor = state.queue[0]
    if actor != p:
        raise IllegalAction(
            code="not_your_turn",
            message=f"{action} refused: it is {{actor}}'s turn, not {{player}}'s "
            f"({{hand}}{state.street_name})",
            extra={"player": p, "actor": actor},
            players={"player": p, "actor": actor},
        )
    return p


def _raise_bounds(state: HandState, p: int) -> tuple[int, int] | str:
    """(min_to, max_to) of a bet or raise by the actor ``p``, or the code saying why not.

    Hot path (every decision): plain values only; :func:`_refusal` explains a code.
    """
    structure = state.game.structure
    if structure.cap and state.raise_count >= structure.cap:
        return "cap_reached"
    if state.allin_pending and state.allin_sum < state.full_raise and state.acted >> p & 1:
        return "betting_not_reopened"
    bets, stacks, active = state.bets, state.stacks, state.active
    max_bet = max(bets)
    bet, stack = bets[p], stacks[p]
    if stack <= max_bet - bet:
        return "insufficient_chips"
    second = top = 0
    opponent = False
    for i in range(state.player_count):
        if active[i]:
            total = stacks[i] + bets[i]
            if total > top:
                second, top = top, total
            elif total > second:
                second = total
            if i != p and total > max_bet:
                opponent = True
    if not opponent:
        return "opponents_all_in"
    effective = min(stack, max(0, second - bet))
    increment = max(state.full_raise, structure.min_increment(state.config, state.street))
    min_to = min(effective + bet, increment + max_bet)
    return min_to, structure.max_to(state, p, min_to)


def _refusal(state: HandState, p: int, code: str) -> IllegalAction:
    """The error for a :func:`_raise_bounds` refusal code, with its context."""
    where = context(state)
    owed = max(state.bets) - state.bets[p]
    cap = state.game.structure.cap
    messages = {
        "cap_reached": f"betting is capped at {cap} bets this street {where}",
        "betting_not_reopened": "an all-in for less than a full raise does not reopen the "
        f"betting to a player who already acted; call or fold {where}",
        "insufficient_chips": f"{state.stacks[p]} chips do not cover the call of {owed}; "
        f"only an all-in call is possible {where}",
        "opponents_all_in": "every other player is all-in or covered; only calling is "
        f"possible {where}",
    }
    return IllegalAction(
        code=code, message=messages[code], extra={"player": p}, players={"player": p}
    )


def legal_actions(state: HandState) -> LegalActions | None:
    """What the player to act may do, or None when no betting decision is pending.

    >>> from poker.engine.config import HandConfig
    >>> from poker.engine.deck import FixedDeck
    >>> from poker.engine.game import start_hand
    >>> cfg = HandConfig(variant="NT", starting_stacks=(1000, 1000, 1000),
    ...                  blinds_or_straddles=(50, 100, 0), min_bet=100)
    >>> state, _ = start_hand(cfg, FixedDeck(tuple(range(52))))
    >>> legal_actions(state)
    LegalActions(actor=2, actions=('fold', 'call', 'raise'), call_amount=100, min_to=200, max_to=1000)
    """
    if state.phase != BETTING:
        return None
    p = state.queue[0]
    bets = state.bets
    max_bet = max(bets)
    to_call = min(max_bet - bets[p], state.stacks[p])
    actions = [FOLD, CALL] if to_call else [CHECK]
    bounds = _raise_bounds(state, p)
    if isinstance(bounds, str):
        return LegalActions(p, tuple(actions), to_call, None, None)
    actions.append(RAISE if max_bet else BET)
    return LegalActions(p, tuple(actions), to_call, bounds[0], bounds[1])


# --- fold -------------------------------------------------------------------------------


def verify_fold(state: HandState, player: int) -> None:
    """Folding needs a bet to face: a player who may check cannot throw the hand away.

    Folding for free could leave a side pot with nobody to win it (everyone still in it
    folding while an all-in player waits), so the engine refuses it, as tournament rules do.
    """
    p = _check_actor(state, player, FOLD)
    if state.bets[p] >= max(state.bets):
        raise IllegalAction(
            code="cannot_fold",
            message=f"fold refused: there is nothing to call; check instead {context(state)}",
            players={"player": p},
        )


def can_fold(state: HandState, player: int) -> bool:
    """Whether :func:`fold` would be accepted."""
    try:
        verify_fold(state, player)
    except IllegalAction:
        return False
    return True


def fold(state: HandState, player: int) -> Result:
    """``player`` gives up the hand; their chips stay in the pot."""
    verify_fold(state, player)
    return run(state, PlayerFolded(player=player))


# --- check ------------------------------------------------------------------------------


def verify_check(state: HandState, player: int) -> None:
    """Checking needs the player's bet to match the largest bet (e.g. the big blind's option)."""
    p = _check_actor(state, player, CHECK)
    owed = max(state.bets) - state.bets[p]
    if owed:
        raise IllegalAction(
            code="cannot_check",
            message=f"check refused: {owed} to call {context(state)}",
            extra={"call_amount": min(owed, state.stacks[p])},
            players={"player": p},
        )


def can_check(state: HandState, player: int) -> bool:
    """Whether :func:`check` would be accepted."""
    try:
        verify_check(state, player)
    except IllegalAction:
        return False
    return True


def check(state: HandState, player: int) -> Result:
    """``player`` passes without adding chips."""
    verify_check(state, player)
    return run(state, PlayerChecked(player=player))


# --- call -------------------------------------------------------------------------------


def verify_call(state: HandState, player: int) -> int:
    """Calling needs a bet to match; returns the chips the call adds (capped by the stack)."""
    p = _check_actor(state, player, CALL)
    owed = max(state.bets) - state.bets[p]
    if not owed:
        raise IllegalAction(
            code="nothing_to_call",
            message=f"call refused: there is nothing to call; check instead {context(state)}",
            players={"player": p},
        )
    return min(owed, state.stacks[p])


def can_call(state: HandState, player: int) -> bool:
    """Whether :func:`call` would be accepted."""
    try:
        verify_call(state, player)
    except IllegalAction:
        return False
    return True


def call(state: HandState, player: int) -> Result:
    """``player`` matches the largest bet, or goes all-in for less."""
    amount = verify_call(state, player)
    return run(state, PlayerCalled(player=player, amount=amount))


# --- bet and raise ----------------------------------------------------------------------


def _verify_sized(state: HandState, player: int, amount: object, kind: str) -> int:
    p = _check_actor(state, player, kind)
    max_bet = max(state.bets)
    if kind == BET and max_bet:
        raise IllegalAction(
            code="cannot_bet",
            message=f"bet refused: there is already a bet of {max_bet}; raise instead {context(state)}",
            extra={"current_bet": max_bet},
            players={"player": p},
        )
    if kind == RAISE and not max_bet:
        raise IllegalAction(
            code="cannot_raise",
            message=f"raise refused: there is no bet to raise; bet instead {context(state)}",
            players={"player": p},
        )
    if type(amount) is not int:
        raise IllegalAction(
            code="invalid_amount",
            message=f"{kind} refused: the amount must be an integer number of chips, "
            f"got {amount!r} {context(state)}",
            players={"player": p},
        )
    bounds = _raise_bounds(state, p)
    if isinstance(bounds, str):
        raise _refusal(state, p, bounds)
    low, high = bounds
    extra = {"amount": amount, "min": low, "max": high}
    if amount < low:
        raise IllegalAction(
            code=f"{kind}_too_small",
            message=f"{kind} to {amount} is below the minimum {low} {context(state)}",
            extra=extra,
            players={"player": p},
        )
    if amount > high:
        raise IllegalAction(
            code=f"{kind}_too_large",
            message=f"{kind} to {amount} is above the maximum {high} {context(state)}",
            extra=extra,
            players={"player": p},
        )
    return amount


def verify_bet(state: HandState, player: int, amount: object) -> None:
    """A bet opens the street's betting; ``amount`` is the player's street total."""
    _verify_sized(state, player, amount, BET)


def can_bet(state: HandState, player: int, amount: object) -> bool:
    """Whether :func:`bet` would be accepted."""
    try:
        verify_bet(state, player, amount)
    except IllegalAction:
        return False
    return True


def bet(state: HandState, player: int, amount: int) -> Result:
    """``player`` bets to ``amount`` (a street total)."""
    verify_bet(state, player, amount)
    return run(state, BetPlaced(player=player, amount=amount))


def verify_raise(state: HandState, player: int, amount: object) -> None:
    """A raise to ``amount`` (a street total) over an existing bet."""
    _verify_sized(state, player, amount, RAISE)


def can_raise(state: HandState, player: int, amount: object) -> bool:
    """Whether :func:`raise_to` would be accepted."""
    try:
        verify_raise(state, player, amount)
    except IllegalAction:
        return False
    return True


def raise_to(state: HandState, player: int, amount: int) -> Result:
    """``player`` raises to ``amount`` (a street total)."""
    verify_raise(state, player, amount)
    return run(state, RaisedTo(player=player, amount=amount))
