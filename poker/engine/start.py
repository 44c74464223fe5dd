"""The state a hand starts in: its configuration read back from ``HandStarted``, the plan
of its forced bets and the state right after ``HandStarted``.

Live play (:func:`poker.engine.game.start_hand`) and replay
(:func:`poker.engine.transitions.replay`) both start here, then fold the hand's other
events with :mod:`poker.engine.transitions`; the forced bets are posted from the plan
made here, one ``AntePosted`` or ``BlindPosted`` event each.
"""

from __future__ import annotations

from poker.engine.config import HandConfig, RakeConfig, forced_by_player
from poker.engine.events import HandStarted
from poker.engine.state import DEALING_HOLE, POSTING, HandState


def config_from_event(event: HandStarted) -> HandConfig:
    """The :class:`HandConfig` recorded in a ``HandStarted`` event."""
    return HandConfig(
        variant=event.variant,
        starting_stacks=event.starting_stacks,
        antes=event.antes,
        blinds_or_straddles=event.blinds_or_straddles,
        min_bet=event.min_bet,
        small_bet=event.small_bet,
        big_bet=event.big_bet,
        ante_trimming=event.ante_trimming,
        rake=RakeConfig(
            bps=event.rake_bps, cap=event.rake_cap, no_flop_no_drop=event.rake_no_flop_no_drop
        ),
    )


def forced_bet_plan(config: HandConfig) -> tuple[tuple[str, int, int], ...]:
    """The forced bets of a hand, in posting order: ``(kind, player, amount)``.

    Antes first, then blinds and straddles, each capped by the chips the player has. With
    ante trimming (uniform antes) an ante above every other player's ante is cut to the
    second largest, as the uncalled part would be returned anyway.
    """
    stacks = config.starting_stacks
    nominal_antes = forced_by_player(config.antes)
    blinds = forced_by_player(config.blinds_or_straddles)
    plan: list[tuple[str, int, int]] = []
    antes = [a if a < s else s for a, s in zip(nominal_antes, stacks, strict=True)]
    if any(antes):
        cutoff = sorted(antes)[-2] if config.ante_trimming else max(antes)
        posted = (a if a < cutoff else cutoff for a in antes)
        plan.extend(("ante", i, a) for i, a in enumerate(posted) if a)
    for i, blind in enumerate(blinds):
        if blind:
            left = stacks[i] - antes[i]
            if left:
                plan.append(("blind", i, blind if blind < left else left))
    return tuple(plan)


def start_state(
    event: HandStarted, deck: tuple[int, ...], config: HandConfig | None = None
) -> HandState:
    """The state right after ``HandStarted``; ``deck`` is the shuffled deck (or empty).

    ``config`` may be given when the caller built ``event`` from it (saves re-validating).
    """
    config = config or config_from_event(event)
    n = config.player_count
    s = object.__new__(HandState)
    zeros = (0,) * n
    falses = (False,) * n
    s.config = config
    s.game = config.game
    s.player_count = n
    s.phase = POSTING
    s.street = 0
    s.stacks = config.starting_stacks
    s.bets = zeros
    s.committed = zeros
    s.antes_posted = zeros
    s.active = (True,) * n
    s.hole_cards = ((),) * n
    s.dealt = falses
    s.board = ()
    s.shown = falses
    s.mucked = falses
    s.queue = ()
    s.acted = 0
    s.full_raise = 0
    s.allin_sum = 0
    s.allin_pending = False
    s.raise_count = 0
    s.opener = 0
    s.pending_return = None
    s.showdown_queue = ()
    s.forced_plan = forced_bet_plan(config)
    s.deck = deck
    s.deck_pos = 0
    s.server_seed = event.server_seed
    s.deck_commitment = event.deck_commitment
    s.won = zeros
    s.rake = 0
    s.rake_by_pot = ()
    if not s.forced_plan:
        s.phase = DEALING_HOLE
    return s
