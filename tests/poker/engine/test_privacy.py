"""poker.engine.privacy: each rule of who may see what, named after the rule (the channels are
tested end to end in test_privacy_channels.py and test_ws_privacy.py)."""

from poker.engine.betting import legal_actions
from poker.engine.cards import format_cards
from poker.engine.config import HandConfig
from poker.engine.deck import FairDeck
from poker.engine.events import UNKNOWN_CARD, HoleCardsDealt
from poker.engine.game import act, start_hand
from poker.engine.privacy import (
    as_seen_by,
    cards_on_the_table,
    hole_cards_visible,
    may_read_hand,
    on_the_wire,
    private_part,
    public_hand_events,
    seed_may_be_public,
    seed_may_be_public_at,
    sees_from_the_deal,
    shown_players,
    viewable,
)
from poker.engine.showdown import showdown_auto
from poker.engine.state import SHOWDOWN


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


def _started():
    config = HandConfig(
        variant="NT", starting_stacks=(1000, 1000), blinds_or_straddles=(50, 100), min_bet=100
    )
    return start_hand(config, FairDeck())


def test_hole_cards_are_visible_to_their_owner_and_to_others_once_shown():
    assert hole_cards_visible(0, viewer=0, shown=())
    assert not hole_cards_visible(0, viewer=1, shown=())
    assert not hole_cards_visible(0, viewer=None, shown=())
    assert hole_cards_visible(0, viewer=1, shown={0})
    assert hole_cards_visible(0, viewer=None, shown={0})


def test_cards_are_on_the_table_only_once_shown():
    state, _ = _started()
    assert [cards_on_the_table(state, i) for i in range(2)] == [None, None]
    over, _ = _heads_up(all_in=True)  # both hands shown at the showdown
    assert [cards_on_the_table(over, i) for i in range(2)] == [
        format_cards(over.hole_cards[i]) for i in range(2)
    ]


def test_the_seed_may_be_public_at_a_state_only_when_the_hand_is_over_and_all_showed():
    state, _ = _started()
    assert not seed_may_be_public_at(state)
    over, events = _heads_up(all_in=True)
    assert seed_may_be_public_at(over)
    checked, events = _heads_up(all_in=False)
    # The same rule as over the events: whoever mucked keeps the seed secret.
    assert seed_may_be_public_at(checked) == seed_may_be_public(events)
    assert seed_may_be_public_at(checked) == (shown_players(events) == {0, 1})


def test_the_private_part_holds_the_owners_cards_and_their_legal_actions_on_their_turn():
    state, _ = _started()
    actor = state.actor
    other = 1 - actor
    mine = private_part(3, "active", state, actor)
    assert mine["seat"] == 3 and mine["state"] == "active"
    assert mine["hole_cards"] == format_cards(state.hole_cards[actor])
    legal = legal_actions(state)
    assert mine["legal_actions"]["actions"] == list(legal.actions)
    theirs = private_part(5, "active", state, other)
    assert theirs["hole_cards"] == format_cards(state.hole_cards[other])
    assert theirs["legal_actions"] is None
    # Seated but not dealt in, or no hand running: no cards, no actions.
    assert private_part(7, "sitting_out", state, None)["hole_cards"] is None
    assert private_part(7, "active", None, None) == {
        "seat": 7, "state": "active", "hole_cards": None, "legal_actions": None
    }  # fmt: skip


def test_public_hand_events_hide_every_unshown_hand_and_the_seed_while_it_reveals_any():
    state, events = _started()
    public = public_hand_events(events, state, [4, 6])
    dealt = [e for e in public if e["type"] == "HoleCardsDealt"]
    assert dealt and all(e["cards"] is None for e in dealt)
    assert {e["seat"] for e in dealt} == {4, 6}
    started = next(e for e in public if e["type"] == "HandStarted")
    assert started["server_seed"] == "" and started["seats"] == [4, 6]
    over, all_events = _heads_up(all_in=True)
    ended = public_hand_events(all_events[-1:], over, [4, 6])[0]
    assert ended["type"] == "HandEnded" and ended["server_seed"] != ""


def test_a_hand_is_read_by_its_players_and_by_staff_only():
    assert may_read_hand(7, [7, 9], staff=False)
    assert not may_read_hand(8, [7, 9], staff=False)
    assert not may_read_hand(None, [7, 9], staff=False)
    assert may_read_hand(8, [7, 9], staff=True)
    assert may_read_hand(None, [7, 9], staff=True)


def test_a_replay_shows_from_the_deal_only_the_viewers_own_hand_or_every_hand_to_staff():
    assert sees_from_the_deal(0, viewer=0, staff=False)
    assert not sees_from_the_deal(1, viewer=0, staff=False)
    assert not sees_from_the_deal(1, viewer=None, staff=False)
    assert sees_from_the_deal(1, viewer=None, staff=True)


def test_an_unseen_hand_is_null_on_the_wire_and_players_are_seats():
    _, events = _started()
    dealt = [e for e in events if isinstance(e, HoleCardsDealt)]
    seen = as_seen_by(dealt[1], viewer=dealt[0].player)
    assert UNKNOWN_CARD in seen.cards
    wire = on_the_wire(seen, [4, 6])
    assert wire["cards"] is None and "player" not in wire
    assert wire["seat"] == [4, 6][dealt[1].player]
    own = on_the_wire(as_seen_by(dealt[0], viewer=dealt[0].player), [4, 6])
    assert own["cards"] == list(dealt[0].cards)
