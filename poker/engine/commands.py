"""Running a validated command: apply its event to a private copy, then let the hand flow."""

from __future__ import annotations

from poker.engine.errors import IllegalAction
from poker.engine.events import Event
from poker.engine.flow import advance
from poker.engine.state import ENDED, HandState
from poker.engine.transitions import APPLIERS

Result = tuple[HandState, list[Event]]


def run(state: HandState, event: Event) -> Result:
    """The new state and every event produced by ``event`` (already validated)."""
    new = state.copy()
    APPLIERS[type(event)](new, event)
    events = [event]
    advance(new, events)
    return new, events


def context(state: HandState) -> str:
    """The ``({hand}{player}, flop)`` suffix of error messages: the error names the
    player (``players={"player": p}``), the edge says which hand (see ``EngineError``)."""
    return f"({{hand}}{{player}}, {state.street_name})"


def check_player(state: HandState, player: object, action: str) -> int:
    """Refuse commands on a finished hand or for a player index that does not exist."""
    if state.phase == ENDED:
        raise IllegalAction(
            code="hand_over",
            message=f"{action} refused: the hand is over",
            extra={"action": action},
        )
    if type(player) is not int or not 0 <= player < state.player_count:
        raise IllegalAction(
            code="unknown_player",
            # No such player: nobody to name by seat, so the index is all there is to say.
            message=f"{action} refused: no player {player!r} in this hand of {state.player_count}",
            extra={"player": repr(player)},
        )
    return player
