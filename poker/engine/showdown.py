"""Showdown: players show or muck in order, or :func:`showdown_auto` decides for them.

Order: the last player who bet or raised on the final betting street shows first, else
the first player left of the button, then clockwise. When fewer than two players can
still bet, the showdown happens right after the last betting round, before the remaining
board is run out (as in PHH, where ``sm`` lines precede the run-out cards).

Mucking gives up every claim to the pots. It is refused to a player who is the last one
holding cards in a pot they are eligible for (they must show to take it); if mucks leave a
single player in the hand, the showdown ends and that player wins uncontested.
"""

from __future__ import annotations

from collections.abc import Sequence

from poker.engine.commands import Result, check_player, context, run
from poker.engine.errors import IllegalAction
from poker.engine.events import UNKNOWN_CARD, CardsMucked, CardsShown, Event
from poker.engine.flow import advance
from poker.engine.pots import Pot
from poker.engine.state import SHOWDOWN, HandState
from poker.engine.transitions import APPLIERS, LAST_STREET


def _check_turn(state: HandState, player: object, action: str) -> int:
    p = check_player(state, player, action)
    if state.phase != SHOWDOWN:
        raise IllegalAction(
            code="not_showdown",
            message=f"{action} refused: there is no showdown now (phase {state.phase})",
            extra={"phase": state.phase},
        )
    first = state.showdown_queue[0]
    if first != p:
        raise IllegalAction(
            code="not_your_turn",
            message=f"{action} refused: {{actor}} shows or mucks first {context(state)}",
            extra={"player": p, "actor": first},
            players={"player": p, "actor": first},
        )
    return p


def verify_show(
    state: HandState, player: int, cards: Sequence[int] | None = None
) -> tuple[int, ...]:
    """The cards ``player`` shows: their own, all known (``cards`` may reveal unknown ones)."""
    p = _check_turn(state, player, "show")
    held = state.hole_cards[p]
    shown = held if cards is None else tuple(cards)
    mismatch = len(shown) != len(held) or any(
        h not in (UNKNOWN_CARD, c) for h, c in zip(held, shown, strict=False)
    )
    if mismatch:
        raise IllegalAction(
            code="cards_mismatch",
            message="show refused: those are not {player}'s hole cards",
            players={"player": p},
        )
    if UNKNOWN_CARD in shown:
        raise IllegalAction(
            code="unknown_cards",
            message="show refused: {player}'s hole cards are not known",
            players={"player": p},
        )
    board = set(state.board)
    others = {c for i, h in enumerate(state.hole_cards) if i != p for c in h}
    if any(c in board or c in others for c in shown):
        raise IllegalAction(
            code="duplicate_card",
            message="show refused: a shown card of {player} was already dealt elsewhere",
            players={"player": p},
        )
    return shown


def can_show(state: HandState, player: int, cards: Sequence[int] | None = None) -> bool:
    """Whether :func:`show` would be accepted."""
    try:
        verify_show(state, player, cards)
    except IllegalAction:
        return False
    return True


def show(state: HandState, player: int, cards: Sequence[int] | None = None) -> Result:
    """``player`` turns their hole cards face up (public from now on)."""
    shown = verify_show(state, player, cards)
    return run(state, CardsShown(player=player, cards=shown))


def _sole_claim(state: HandState, p: int) -> int | None:
    """Index of a pot where ``p`` is the only player still holding cards, if any."""
    active = state.active
    for index, pot in enumerate(state.pots):
        if p in pot.eligible and not any(active[i] for i in pot.eligible if i != p):
            return index
    return None


def verify_muck(state: HandState, player: int) -> None:
    """Mucking is allowed unless it would leave a pot with nobody to win it."""
    p = _check_turn(state, player, "muck")
    if sum(state.active) > 1:
        pot = _sole_claim(state, p)
        if pot is not None:
            raise IllegalAction(
                code="cannot_muck",
                message=f"muck refused: {{player}} is the last player in pot {pot}; show to win it",
                extra={"pot": pot},
                players={"player": p},
            )


def can_muck(state: HandState, player: int) -> bool:
    """Whether :func:`muck` would be accepted."""
    try:
        verify_muck(state, player)
    except IllegalAction:
        return False
    return True


def muck(state: HandState, player: int) -> Result:
    """``player`` throws the hand away unseen, giving up any claim to the pots."""
    verify_muck(state, player)
    return run(state, CardsMucked(player=player))


def _should_show(state: HandState, p: int, values: dict[int, int], pots: tuple[Pot, ...]) -> bool:
    """Show when the hand might win or tie a pot (always before a run-out), else muck.

    A pot where nobody still in has shown yet, or where ``p`` is the last one in, counts as
    one ``p`` might win. ``values`` caches hand values across the showdown; ``pots`` are
    the pots when the showdown began (mucking only removes players, checked via ``active``).
    """
    if UNKNOWN_CARD in state.hole_cards[p]:
        return False
    if state.street < LAST_STREET:
        return True
    game, board, hole = state.game, state.board, state.hole_cards
    active, shown = state.active, state.shown
    for i in (p, *(i for i in range(state.player_count) if shown[i] and active[i])):
        if i not in values:
            values[i] = game.hand_value(hole[i], board)
    mine = values[p]
    for pot in pots:
        if p in pot.eligible:
            rivals = [values[i] for i in pot.eligible if i != p and active[i] and shown[i]]
            if not rivals or mine >= max(rivals):
                return True
    return False


def showdown_auto(state: HandState) -> Result:
    """Finish the showdown without player input: winners show, losers who may muck muck.

    For the table layer (timeouts, auto-muck settings). Runs the hand on as far as it can
    go without a decision, like any command. A no-op when no showdown is pending.
    """
    if state.phase != SHOWDOWN:
        return state, []
    new = state.copy()
    events: list[Event] = []
    values: dict[int, int] = {}
    pots = new.pots
    while new.phase == SHOWDOWN:
        p = new.showdown_queue[0]
        event: Event
        if _should_show(new, p, values, pots):
            event = CardsShown(player=p, cards=new.hole_cards[p])
        else:
            verify_muck(new, p)  # unknown cards that cannot be mucked: refused, typed
            event = CardsMucked(player=p)
        APPLIERS[type(event)](new, event)
        events.append(event)
    advance(new, events)
    return new, events
