"""poker.privacy: hole cards and the deck seed in public views."""

from poker.engine.config import HandConfig
from poker.engine.deck import FairDeck
from poker.engine.game import act, start_hand
from poker.engine.showdown import showdown_auto
from poker.engine.state import SHOWDOWN
from poker.privacy import seed_may_be_public, viewable


def _heads_up(all_in: bool):
    config = HandConfig(
        variant="NT", starting_stacks=(1000, 1000), blinds_or_straddles=(50, 100), min_bet=100
    )
    state, events = start_hand(config, FairDeck())
    while not state.is_over:
        if state.phase == SHOWDOWN:
            state, new = showdown_auto(state)
        else:
            legal = state.actor
            if all_in and state.street == 0 and state.bets[legal] < 1000:
                from poker.engine.betting import legal_actions

                options = legal_actions(state)
                if "raise" in options.actions:
                    state, new = act(state, legal, "raise", options.max_to)
                else:
                    state, new = act(state, legal, "call")
            else:
                from poker.engine.betting import legal_actions

                options = legal_actions(state)
                action = "check" if "check" in options.actions else "call"
                state, new = act(state, legal, action)
        events.extend(new)
    return state, events


def test_other_players_hole_cards_are_hidden_until_shown():
    _, events = _heads_up(all_in=False)
    dealt = [e for e in events if type(e).__name__ == "HoleCardsDealt"]
    mine = viewable(dealt[0], [1, 2], viewer=dealt[0].player)
    theirs = viewable(dealt[1], [1, 2], viewer=dealt[0].player)
    assert mine["cards"] and theirs["cards"] is None
    assert viewable(dealt[1], [1, 2], viewer=dealt[0].player, shown={dealt[1].player})["cards"]


def test_the_seed_stays_secret_while_any_dealt_hand_was_never_shown():
    _, events = _heads_up(all_in=False)  # checked down: the loser may muck
    shown = {e.player for e in events if type(e).__name__ == "CardsShown"}
    if shown == {0, 1}:  # a chopped pot shows both hands; the rule then allows the seed
        assert seed_may_be_public(events)
        return
    assert not seed_may_be_public(events)
    ended = next(e for e in events if type(e).__name__ == "HandEnded")
    assert viewable(ended, [1, 2])["server_seed"] == ""
    started = next(e for e in events if type(e).__name__ == "HandStarted")
    assert viewable(started, [1, 2])["server_seed"] == ""


def test_the_seed_is_revealed_once_every_hand_was_shown():
    _, events = _heads_up(all_in=True)  # all-in pre-flop: both hands are shown
    assert seed_may_be_public(events)
    ended = next(e for e in events if type(e).__name__ == "HandEnded")
    assert viewable(ended, [1, 2], reveal_seed=True)["server_seed"] == ended.server_seed != ""
