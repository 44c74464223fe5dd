"""What happens by itself between decisions: uncalled bets, dealing from the deck, payouts.

After every command the engine calls :func:`advance`, which keeps producing the events
that need no decision (and applies them) until a player or a dealer must act or the hand
ends. Without a deck the hand waits at ``dealing_hole``/``dealing_board``/``runout`` for
explicit dealing commands (the hand-history replay path).
"""

from __future__ import annotations

from poker.engine.awards import award_events
from poker.engine.events import BoardDealt, Event, HoleCardsDealt, UncalledBetReturned
from poker.engine.state import AWARDING, DEALING_BOARD, DEALING_HOLE, RETURNING, RUNOUT, HandState
from poker.engine.transitions import APPLIERS


def advance(state: HandState, events: list[Event]) -> None:
    """Apply automatic events to ``state`` (a private copy) and append them to ``events``."""
    while True:
        phase = state.phase
        event: Event
        if phase == RETURNING:
            assert state.pending_return is not None
            player, amount = state.pending_return
            event = UncalledBetReturned(player=player, amount=amount)
        elif phase == DEALING_HOLE and state.deck:
            player = state.dealt.index(False)
            pos = state.deck_pos
            count = state.game.hole_count
            event = HoleCardsDealt(player=player, cards=state.deck[pos : pos + count])
        elif phase in (DEALING_BOARD, RUNOUT) and state.deck:
            street = state.street + 1
            pos = state.deck_pos
            count = state.game.board_counts[street]
            event = BoardDealt(street=street, cards=state.deck[pos : pos + count])
        elif phase == AWARDING:
            for settled in award_events(state):
                APPLIERS[type(settled)](state, settled)
                events.append(settled)
            return
        else:
            return
        APPLIERS[type(event)](state, event)
        events.append(event)
