"""Events: JSON round trips, visibility, purity of apply, replay and resuming a hand."""

from __future__ import annotations

import json
import random

import pytest

from poker.engine.deck import FairDeck, FixedDeck, commitment
from poker.engine.game import (
    EVENT_TYPES,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    InvalidEvent,
    PlayerFolded,
    act,
    apply,
    event_from_dict,
    legal_actions,
    private_to,
    redact,
    replay,
    start_hand,
)
from tests.poker.engine.engine_helpers import config, random_hand

SEED = bytes(range(32))


def played(seed: int = 3, n: int = 4) -> list[object]:
    state, events = start_hand(config((1000,) * n), FairDeck(SEED))
    _, events = random_hand(state, random.Random(seed), events)
    return events


def test_every_event_round_trips_through_json() -> None:
    seen = set()
    for seed in range(40):
        for event in played(seed):
            data = json.loads(json.dumps(event.to_dict()))  # type: ignore[attr-defined]
            assert event_from_dict(data) == event
            seen.add(type(event).__name__)
    assert {"HandStarted", "HoleCardsDealt", "PotAwarded", "HandEnded"} <= seen


def test_events_are_frozen_keyword_only_and_versioned() -> None:
    event = PlayerFolded(player=1)
    with pytest.raises(AttributeError):
        event.player = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        PlayerFolded(1)  # type: ignore[misc]
    assert all(isinstance(cls.version, int) for cls in EVENT_TYPES.values())


def test_unknown_or_newer_events_are_refused() -> None:
    with pytest.raises(InvalidEvent) as info:
        event_from_dict({"type": "PlayerDanced", "version": 1})
    assert info.value.code == "event_type_unknown"
    with pytest.raises(InvalidEvent) as info:
        event_from_dict({"type": "PlayerFolded", "version": 99, "player": 0})
    assert info.value.code == "event_version_unsupported"


def test_hole_cards_are_private_to_their_owner_and_everything_else_is_public() -> None:
    for event in played():
        if type(event) is HoleCardsDealt:
            assert private_to(event) == event.player
        else:
            assert private_to(event) is None  # type: ignore[arg-type]


def test_the_server_seed_is_secret_until_the_hand_ends() -> None:
    events = played()
    started = events[0]
    assert type(started) is HandStarted
    assert started.server_seed == SEED.hex()
    assert started.deck_commitment == commitment(SEED)
    public = redact(started)
    assert public.server_seed == "" and public.fixed_deck == ()  # type: ignore[attr-defined]
    assert public.deck_commitment == commitment(SEED)  # type: ignore[attr-defined]
    ended = events[-1]
    assert type(ended) is HandEnded and ended.server_seed == SEED.hex()
    fixed, _ = start_hand(config((1000, 1000)), FixedDeck(range(52)))
    assert fixed.deck  # a fixed deck is recorded, and redacted, card by card


def test_apply_is_pure_and_replay_rebuilds_the_live_state() -> None:
    state, events = start_hand(config((1000,) * 3), FairDeck(SEED))
    rng = random.Random(7)
    while not state.is_over:
        before = state.copy()
        legal = legal_actions(state)
        if legal is None:
            break
        action = rng.choice(legal.actions)
        amount = legal.min_to if action in ("bet", "raise") else None
        new, more = act(state, legal.actor, action, amount)
        assert state == before  # the command did not touch its input
        rebuilt = state
        for event in more:
            rebuilt = apply(rebuilt, event)
        assert state == before  # neither did apply
        assert rebuilt == new
        events += more
        state = new
        assert replay(events) == state


def test_a_replayed_hand_keeps_dealing_the_same_cards() -> None:
    cfg = config((1000,) * 3)
    live, events = start_hand(cfg, FairDeck(SEED))
    live, more = act(live, 2, "call")
    events += more
    resumed = replay(events)  # e.g. after a crash, from the event store
    flops = []
    for state in (live, resumed):
        state, _ = act(state, 0, "call")
        state, out = act(state, 1, "check")
        assert [type(e).__name__ for e in out] == ["PlayerChecked", "BoardDealt"]
        flops.append(out[-1])
    assert flops[0] == flops[1]


def test_events_that_do_not_fit_the_state_are_refused() -> None:
    state, events = start_hand(config((1000,) * 3), FairDeck(SEED))
    with pytest.raises(InvalidEvent):
        apply(state, PlayerFolded(player=0))  # player 2 is first to act
    with pytest.raises(InvalidEvent):
        apply(state, events[0])
    with pytest.raises(InvalidEvent):
        replay([])


def test_malformed_events_are_refused_as_invalid_events() -> None:
    state, _ = start_hand(config((1000,) * 3))
    with pytest.raises(InvalidEvent):
        apply(state, HoleCardsDealt(player=9, cards=(1, 2)))
