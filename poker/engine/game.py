"""The engine's public API: start a hand, decide, deal, show, apply and replay events.

A pure, deterministic, event-sourced hand state machine. Commands in, events out:
:func:`start_hand` posts forced bets and deals; the betting commands (or :func:`act`),
the dealing commands of the replay path and the showdown commands each return
``(new_state, events)`` or raise :class:`IllegalAction`. :func:`apply` folds one event
into a state without mutating it and :func:`replay` rebuilds a hand from its events.
No Django, no I/O, no randomness but the injected deck.

>>> from poker.engine.deck import FixedDeck
>>> cfg = HandConfig(variant="NT", starting_stacks=(1000, 1000, 1000),
...                  blinds_or_straddles=(50, 100, 0), min_bet=100)
>>> state, events = start_hand(cfg, FixedDeck(tuple(range(52))))
>>> state, more = act(state, 2, "raise", 300)
>>> legal_actions(state).actions
('fold', 'call', 'raise')
>>> replay(events + more) == state
True
"""

from __future__ import annotations

from poker.engine.betting import (
    ACTIONS,
    BET,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    LegalActions,
    bet,
    call,
    can_bet,
    can_call,
    can_check,
    can_fold,
    can_raise,
    check,
    fold,
    legal_actions,
    raise_to,
    verify_bet,
    verify_call,
    verify_check,
    verify_fold,
    verify_raise,
)
from poker.engine.commands import Result, check_player
from poker.engine.config import NO_RAKE, HandConfig, RakeConfig
from poker.engine.dealing import (
    can_deal_board,
    can_deal_hole,
    deal_board,
    deal_hole,
    verify_deal_board,
    verify_deal_hole,
)
from poker.engine.deck import DeckSource
from poker.engine.errors import EngineError, IllegalAction, InvalidConfig, InvalidEvent
from poker.engine.events import (
    EVENT_TYPES,
    SECRET_FIELDS,
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
    event_from_dict,
    private_to,
    redact,
)
from poker.engine.flow import advance
from poker.engine.pots import Pot
from poker.engine.seeding import source_fields
from poker.engine.showdown import (
    can_muck,
    can_show,
    muck,
    show,
    showdown_auto,
    verify_muck,
    verify_show,
)
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
from poker.engine.transitions import APPLIERS, apply, replay
from poker.engine.variants import VARIANTS, Variant

__all__ = [
    "ACTIONS",
    "AWARDING",
    "BETTING",
    "DEALING_BOARD",
    "DEALING_HOLE",
    "ENDED",
    "EVENT_TYPES",
    "NO_RAKE",
    "POSTING",
    "RETURNING",
    "RUNOUT",
    "SECRET_FIELDS",
    "SHOWDOWN",
    "UNKNOWN_CARD",
    "VARIANTS",
    "AntePosted",
    "BetPlaced",
    "BlindPosted",
    "BoardDealt",
    "CardsMucked",
    "CardsShown",
    "EngineError",
    "Event",
    "HandConfig",
    "HandEnded",
    "HandStarted",
    "HandState",
    "HoleCardsDealt",
    "IllegalAction",
    "InvalidConfig",
    "InvalidEvent",
    "LegalActions",
    "PlayerCalled",
    "PlayerChecked",
    "PlayerFolded",
    "Pot",
    "PotAwarded",
    "RaisedTo",
    "RakeConfig",
    "RakeTaken",
    "Result",
    "UncalledBetReturned",
    "Variant",
    "act",
    "apply",
    "bet",
    "call",
    "can_bet",
    "can_call",
    "can_check",
    "can_deal_board",
    "can_deal_hole",
    "can_fold",
    "can_muck",
    "can_raise",
    "can_show",
    "check",
    "deal_board",
    "deal_hole",
    "event_from_dict",
    "fold",
    "hand_started_event",
    "legal_actions",
    "muck",
    "private_to",
    "raise_to",
    "redact",
    "replay",
    "show",
    "showdown_auto",
    "start_hand",
    "verify_bet",
    "verify_call",
    "verify_check",
    "verify_deal_board",
    "verify_deal_hole",
    "verify_fold",
    "verify_muck",
    "verify_raise",
    "verify_show",
]


def hand_started_event(
    config: HandConfig, deck: DeckSource | None = None, nonce: int = 0
) -> tuple[HandStarted, tuple[int, ...]]:
    """The ``HandStarted`` event recording ``config`` and the deck, and the deck order."""
    rake = config.rake
    fields, order = source_fields(deck, config.game, nonce)
    event = HandStarted(
        variant=config.variant,
        starting_stacks=config.starting_stacks,
        antes=config.antes,
        blinds_or_straddles=config.blinds_or_straddles,
        min_bet=config.min_bet,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        ante_trimming=config.ante_trimming,
        rake_bps=rake.bps,
        rake_cap=rake.cap,
        rake_no_flop_no_drop=rake.no_flop_no_drop,
        **fields,
    )
    return event, order


def start_hand(config: HandConfig, deck: DeckSource | None = None, *, nonce: int = 0) -> Result:
    """Start a hand: record it, post antes and blinds, and deal if a deck is given.

    With a deck (a fresh ``FairDeck`` per hand in production: its seed is revealed at the
    end) the hand deals itself from then on; without one it waits for
    :func:`~poker.engine.dealing.deal_hole` commands. ``nonce`` is passed to the deck.

    >>> from poker.engine.deck import FixedDeck
    >>> cfg = HandConfig(variant="NT", starting_stacks=(1000, 1000),
    ...                  blinds_or_straddles=(50, 100), min_bet=100)
    >>> state, events = start_hand(cfg, FixedDeck(tuple(range(52))))
    >>> [type(e).__name__ for e in events]
    ['HandStarted', 'BlindPosted', 'BlindPosted', 'HoleCardsDealt', 'HoleCardsDealt']
    >>> state.actor, state.bets  # heads-up: the button (1) posted the small blind, acts first
    (1, (100, 50))
    """
    started, order = hand_started_event(config, deck, nonce)
    state = start_state(started, order, config)
    events: list[Event] = [started]
    for kind, player, amount in state.forced_plan:
        forced = (AntePosted if kind == "ante" else BlindPosted)(player=player, amount=amount)
        APPLIERS[type(forced)](state, forced)
        events.append(forced)
    advance(state, events)
    return state, events


def act(state: HandState, player: int, action: str, amount: int | None = None) -> Result:
    """Dispatch a betting decision by name: ``fold``, ``check``, ``call``, ``bet``, ``raise``.

    ``amount`` is the *to* total for ``bet`` and ``raise``; it must be omitted (or equal the
    call amount) for ``call`` and omitted for ``fold``/``check``.
    """
    check_player(state, player, action)
    if action in (FOLD, CHECK):
        if amount is not None:
            raise IllegalAction(
                code="invalid_amount",
                message=f"{action} takes no amount, got {amount!r}",
            )
        return fold(state, player) if action == FOLD else check(state, player)
    if action == CALL:
        if amount is not None and amount != min(
            max(state.bets) - state.bets[player], state.stacks[player]
        ):
            raise IllegalAction(
                code="invalid_amount",
                message=f"call amount {amount!r} is not the amount owed",
            )
        return call(state, player)
    if action in (BET, RAISE):
        if amount is None:
            raise IllegalAction(code="invalid_amount", message=f"{action} needs an amount")
        return bet(state, player, amount) if action == BET else raise_to(state, player, amount)
    raise IllegalAction(
        code="unknown_action",
        message=f"unknown action {action!r} (expected fold, check, call, bet or raise)",
        extra={"action": action},
    )
