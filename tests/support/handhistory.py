"""Hands played for the hand-history tests, and the checks that replay their exports
(pokerkit, the settled stacks)."""

from __future__ import annotations

import random
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from pokerkit import HandHistory

from handhistory.exports.records import HandRecord
from handhistory.exports.tournaments import TournamentFacts, TournamentHand
from handhistory.models import Hand, PlayerHandResult
from poker.commands.seating import table_sit
from poker.engine.cards import parse_cards
from poker.engine.config import HandConfig, RakeConfig
from poker.engine.deck import FairDeck
from poker.engine.events import PotAwarded, RakeTaken
from poker.engine.game import act, legal_actions, showdown_auto, start_hand
from poker.engine.phh import loads, replay_hand
from tests.support.poker import actor_for, fund, key, play_hands_with_rebuys, play_random_hands

#: Buy-ins far apart so all-ins make side pots; antes, rake and uncalled bets come with the
#: table settings and the random play.
BUY_INS = (2_000, 5_000, 12_000)
#: The table settings of the random-play exports, by variant.
TABLES = {
    "NT": {"variant": "NT", "ante": 10, "rake_bps": 500, "rake_cap": 150},
    "FT": {"variant": "FT", "rake_bps": 500, "rake_cap": 100},
    "PO": {"variant": "PO", "ante": 10, "rake_bps": 300, "rake_cap": 200},
    "NS": {"variant": "NS", "ante": 50},
}


class SeededDecks:
    """Stands in for the dealer's ``FairDeck``: every hand's order comes from one seeded
    generator, so the hands a test plays (and the mucks, splits and side pots its
    assertions count on) are the same on every run. Recorded as a fixed deck."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def __call__(self, **_: Any) -> SeededDecks:
        return self

    def deck_order(self, cards: Any, *, nonce: int = 0) -> tuple[int, ...]:
        deck = list(cards)
        self.rng.shuffle(deck)
        return tuple(deck)


class Fold:
    """A chooser that folds (checks when it may): ends the heads-up hand dealt before the
    third player sat at little cost."""

    def choice(self, options: list[Any]) -> Any:
        return next(a for a in ("check", "fold") if a in options)


class Shove:
    """A chooser for ``play_random_hands`` that bets or raises everything, else calls:
    three different stacks all in make a main pot and side pots."""

    def choice(self, options: list[Any]) -> Any:
        if isinstance(options[0], int):
            return options[1]  # [min_to, max_to, middle]
        return next(a for a in ("raise", "bet", "call", "check") if a in options)


def played_hands(make_table: Any, make_player: Any, *, hands: int, seed: int | None, **table: Any):
    """A table after ``hands`` random hands; returns (table, users, finished hand ids)."""
    t = make_table(**table)
    users = [make_player() for _ in BUY_INS]
    for user, buy_in in zip(users, BUY_INS, strict=True):
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=buy_in, key=key(), actor=actor_for(user))
    if seed is None:
        play_random_hands(t, users, 0, Fold())  # counts the hand under way: ends it only
        play_random_hands(t, users, hands, Shove())
    else:
        play_hands_with_rebuys(t, users, BUY_INS, hands, random.Random(seed))
    ids = list(
        Hand.objects.filter(table=t, ended_at__isnull=False)
        .order_by("number")
        .values_list("pk", flat=True)
    )
    return t, users, ids


def settled(hand_id: int, record: Any) -> list[int]:
    """The stacks the hand's settlement wrote, in the record's (engine) order."""
    final = dict(
        PlayerHandResult.objects.filter(hand_id=hand_id).values_list("player_id", "final_stack")
    )
    return [final[u] for u in record.player_ids]


def pokerkit_stacks(text: str) -> list[int]:
    """The final stacks pokerkit replays the file to (pokerkit's default: no rake)."""
    return list(list(HandHistory.loads(text))[-1].stacks)


def rake_back(record: Any, stacks: list[int]) -> list[int]:
    """``stacks`` with each pot's rake given back to its winner.

    pokerkit rakes pot by pot from the amount it computes for the pot, and it computes
    other amounts than the pots that were raked (an uncalled bet counts in a fold-won pot;
    pots merge once their losers are out), so no rake function can take what the house
    took: replay without rake and add the rake back to what was settled instead. A split
    raked pot's share is checked on the pair's total (see the caller).
    """
    out = list(stacks)
    rakes = next((e.amounts for e in record.events if isinstance(e, RakeTaken)), ())
    for e in record.events:
        if isinstance(e, PotAwarded) and rakes and len(e.winners) == 1:
            out[e.winners[0]] += rakes[e.pot]
    return out


def split_raked(record: Any) -> set[int]:
    rakes = next((e.amounts for e in record.events if isinstance(e, RakeTaken)), ())
    return {
        w
        for e in record.events
        if isinstance(e, PotAwarded) and rakes and rakes[e.pot] and len(e.winners) > 1
        for w in e.winners
    }


def assert_pokerkit_replays(text: str, record: Any) -> None:
    """pokerkit's replay ends on the settled stacks, rake aside (:func:`rake_back`)."""
    data = tomllib.loads(text)
    mine = rake_back(record, settled(record.hand_id, record))
    theirs = pokerkit_stacks(text)
    split = split_raked(record)
    assert [v for p, v in enumerate(theirs) if p not in split] == [
        v for p, v in enumerate(mine) if p not in split
    ], text
    assert sum(theirs) == sum(settled(record.hand_id, record)) + data["_rake"], text


def usd_table_played(make_table: Any, make_user: Any, *, hands: int, seed: int, **table: Any):
    """A USD no-limit table (cents) after ``hands`` random hands, three players with buy-ins
    far apart (side pots); busted players rebuy."""
    from handhistory.models import Hand

    t = make_table(currency="USD", **table)
    users = [make_user() for _ in range(3)]
    buy_ins = (2_000, 5_050, 12_000)
    for user, buy_in in zip(users, buy_ins, strict=True):
        fund(user, 100_000, currency="USD")
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=buy_in, key=key(), actor=actor_for(user))
    play_hands_with_rebuys(t, users, buy_ins, hands, random.Random(seed))
    finished = Hand.objects.filter(table=t, ended_at__isnull=False).order_by("number")
    return t, users, list(finished.values_list("pk", flat=True))


def played_by(user: Any) -> list[int]:
    """The finished hands ``user`` was dealt into, in id order (random play may bust a
    player, and the first hand is dealt before the last player sits)."""
    return list(
        PlayerHandResult.objects.filter(player=user)
        .order_by("hand_id")
        .values_list("hand_id", flat=True)
    )


#: When the golden hand (and every hand ``record_of`` builds) started.
WHEN = datetime(2025, 3, 14, 19, 15, 7, tzinfo=UTC)


def record_of(text: str, *, users: tuple[str, ...] = ("ann", "bob", "cy")) -> HandRecord:
    hand = loads(text)
    _, events = replay_hand(hand)
    n = len(hand.config.starting_stacks)
    return HandRecord(
        hand_id=4321,
        number=9,
        table_id=5,
        table_name="Golden",
        max_seats=6,
        currency="USD",
        seats=(2, 4, 5)[:n],
        player_ids=(11, 12, 13)[:n],
        usernames=users[:n],
        started_at=WHEN,
        events=tuple(events),
    )


#: The golden hands (tests/handhistory/export_golden): fixed-limit, and pot-limit Omaha
#: heads-up all in before the flop.
FL = """
variant = "FT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
small_bet = 100
big_bet = 200
starting_stacks = [3000, 5000, 4000]
_rake_bps = 500
_rake_cap = 100
actions = ["d dh p1 Ks9s", "d dh p2 7c2d", "d dh p3 AhAd",
  "p3 cbr 200", "p1 cc", "p2 f",
  "d db Qs8s3h", "p1 cc", "p3 cbr 100", "p1 cbr 200", "p3 cbr 300", "p1 cc",
  "d db 4d", "p1 cc", "p3 cbr 200", "p1 cc",
  "d db 2s", "p1 cbr 200", "p3 cc", "p1 sm Ks9s", "p3 sm AhAd"]
"""

PLO = """
variant = "PO"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [6000, 2500]
actions = ["d dh p1 AsKsQhJh", "d dh p2 9c9d8c7d",
  "p2 cbr 300", "p1 cbr 900", "p2 cbr 2500", "p1 cc",
  "p2 sm 9c9d8c7d", "p1 sm AsKsQhJh", "d db Ts6c2h", "d db 5s", "d db Jd"]
"""


#: Low hole cards and a Broadway board (no flush possible): every showdown splits between
#: the players still in.
CHOP_DECK = parse_cards("2c3d2d3c4c5dAsKdQhJcTs")

#: A button blind is the third forced bet the tables offer (short deck's usual structure,
#: or a bigger blind on the button); PHH writes it in blinds_or_straddles like a straddle.
BUTTON_BLIND_TABLES = {
    "NS": {"variant": "NS", "ante": 50, "button_blind": 100},
    "NT": {"variant": "NT", "button_blind": 200, "rake_bps": 500, "rake_cap": 150},
}

#: Straddles: the table service offers none, so these hands are played by the engine
#: itself (:func:`engine_hands`).
STRADDLED = {
    "NT": {"blinds_or_straddles": (50, 100, 200, 0, 0), "min_bet": 100},
    "PO": {"blinds_or_straddles": (50, 100, 200, 400, 0), "min_bet": 100},
    "NS": {"blinds_or_straddles": (50, 100, 200, 0, 0), "antes": (50,) * 5, "min_bet": 100},
}


def engine_hands(variant: str, *, hands: int, seed: int) -> Iterator[HandRecord]:
    """``hands`` five-handed hands of ``variant`` with straddles, stacks far apart (side
    pots) and 5% rake, played by random legal decisions as records the exporters read."""
    rng = random.Random(seed)
    config = HandConfig(
        variant=variant,
        starting_stacks=(3_000, 8_000, 12_000, 20_000, 5_000),
        rake=RakeConfig(bps=500, cap=300),
        **STRADDLED[variant],
    )
    for k in range(hands):
        state, events = start_hand(config, FairDeck(rng.randbytes(32)))
        while not state.is_over:
            legal = legal_actions(state)
            if legal is None:
                state, more = showdown_auto(state)
            else:
                action = rng.choice(legal.actions)
                amount = None
                if action in ("bet", "raise"):
                    assert legal.min_to is not None and legal.max_to is not None
                    amount = rng.choice([legal.min_to, legal.max_to])
                state, more = act(state, legal.actor, action, amount)
            events += more
        yield HandRecord(
            hand_id=9000 + k,
            number=k + 1,
            table_id=1,
            table_name="Straddles",
            max_seats=9,
            currency="CHIPS",
            seats=(1, 3, 4, 6, 8),
            player_ids=(21, 22, 23, 24, 25),
            usernames=("ann", "bob", "cy", "dee", "eve"),
            started_at=datetime(2026, 11, 24, 12, 0, tzinfo=UTC),
            events=tuple(events),
        )


def raked_table_played(make_table, make_player, *, hands, seed):
    """A three-handed table with 5% rake (capped at 300) after ``hands`` random hands;
    returns (table, players)."""
    t = make_table(rake_bps=500, rake_cap=300)
    users = [make_player() for _ in range(3)]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    play_random_hands(t, users, hands, random.Random(seed))
    return t, users


#: A sit-and-go as its hands' exports describe it: 10.00 + 1.00 EUR, 1,500 chips, levels
#: of six minutes with big blinds 20, 40, 100, 200.
SIT_AND_GO = TournamentFacts(
    tournament_id=45,
    name="Sunday six",
    sit_and_go=True,
    multi_table=False,
    currency="EUR",
    buy_in=1_000,
    fee=100,
    bounty=0,
    starting_stack=1_500,
    started_at=datetime(2026, 11, 29, 18, 0, 4, tzinfo=UTC),
    big_blinds=(20, 40, 100, 200),
    level_minutes=6,
)


def tournament_record(text: str, facts: TournamentFacts = SIT_AND_GO, table: int = 1) -> HandRecord:
    """The hand of the PHH script ``text`` as dealt at table ``table`` of ``facts``'s
    tournament (in chips, at the level of its big blind)."""
    record = record_of(text)
    level = facts.level_of(max(record.started.blinds_or_straddles))
    return replace(
        record,
        currency="CHIPS",
        table_name=f"{facts.name} #{table}",
        tournament=TournamentHand(facts=facts, table_number=table, level=level),
    )
