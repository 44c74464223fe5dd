"""Open Hand History (OHH) export: one ``{"ohh": {...}}`` JSON object per hand.

Field names and values follow the Open Hand History specification (v1.4.7,
hh-specs.handhistory.org); ``schema/ohh.schema.json`` is the JSON Schema every export is
validated against in the tests. A ``.ohh`` file holds one object per hand with a blank line
between them, as the specification's storage format says (the file as a whole is not one
JSON value).

Conventions of the specification that differ from our events:

* Amounts are numbers in the currency's units: major units (minor / 100) for real
  currencies, whole chips for play chips (``CHIPS``).
* ``Raise``/``Bet``/``Call`` amounts are the chips the action added, not the street total
  (our ``RaisedTo``/``BetPlaced`` carry the total).
* There is no action for an uncalled bet given back: the ``Bet``/``Raise`` keeps its amount
  and the pots hold only what was called (a reader gets the returned part as the largest
  contribution's excess over the second largest).
* Pot ``amount`` includes the rake; ``win_amount`` is what the player received, after rake.
* Hole cards appear only where the viewer may see them (``HandRecord.seen_by``): their own
  as ``Dealt Cards`` (staff: everyone's), others' only in the ``Showdown`` round when
  shown. Unknown cards are absent, not placeholders. There is no field for the deck seed.

A tournament hand is ``"tournament": true`` with its ``tournament_info``
(:func:`tournament_info`); its amounts, blinds and stacks are tournament chips (whole
numbers), the blinds and ante those of the level it was dealt at.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from handhistory.exports.phh import VENUE
from handhistory.exports.records import HandRecord, Viewer
from handhistory.exports.tournaments import TournamentFacts
from poker.engine.cards import format_card
from poker.engine.config import blind_seats
from poker.engine.events import (
    UNKNOWN_CARD,
    AntePosted,
    BetPlaced,
    BlindPosted,
    BoardDealt,
    CardsMucked,
    CardsShown,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    PotAwarded,
    RaisedTo,
    RakeTaken,
    UncalledBetReturned,
)

SPEC_VERSION = "1.4.7"
#: The JSON Schema of one exported hand (the specification publishes none).
SCHEMA_PATH = Path(__file__).parent / "schema" / "ohh.schema.json"
#: The version of this module's mapping of our hands to OHH; bump it when the output changes.
INTERNAL_VERSION = "1.0.0"
GAME_TYPES = {"NT": "Holdem", "FT": "Holdem", "NS": "Holdem", "PO": "Omaha"}
BET_TYPES = {"NT": "NL", "FT": "FL", "NS": "NL", "PO": "PL"}
STREETS = ("Preflop", "Flop", "Turn", "River")

Amount = Callable[[int], int | float]


def amount_writer(currency: str) -> Amount:
    """How amounts of ``currency`` (integer minor units) are written.

    ``minor / 100`` is the binary double nearest to the exact decimal, and JSON writers
    (orjson, like ``repr``) print the shortest text that reads back as that double: below
    2**43 cents two different two-decimal values are never that close, so the text is
    exactly the decimal ``minor / 100`` (tests/handhistory/test_export_ohh.py proves it
    on a sweep of values).
    """
    if currency == "CHIPS":
        return int
    return lambda minor: minor / 100


def _blind_action(player: int, n: int) -> str:
    """The OHH action for a blind posted by engine player ``player`` of ``n``."""
    seats = blind_seats(n)
    if player == seats.small:
        return "Post SB"
    if player == seats.big:
        return "Post BB"
    # The button's blind (a table's button_blind) is no straddle: it buys nothing.
    return "Post Extra Blind" if player == seats.button else "Straddle"


POST_ORDER = {"Post Ante": 0, "Post SB": 1, "Post BB": 2, "Straddle": 3, "Post Extra Blind": 4}


def _posts_in_table_order(preflop: list[dict[str, Any]]) -> None:
    """Antes, then the small blind, the big blind and any other blind, as dealers call
    them (heads-up the engine posts the big blind first); numbers the actions again."""
    k = 0
    while k < len(preflop) and preflop[k]["action"] in POST_ORDER:
        k += 1
    preflop[:k] = sorted(preflop[:k], key=lambda a: POST_ORDER[a["action"]])
    for number, action in enumerate(preflop, 1):
        action["action_number"] = number


def hand_object(record: HandRecord, viewer: Viewer) -> dict[str, Any]:
    """One hand as the OHH dict (the value under ``"ohh"``), as ``viewer`` may see it."""
    events = record.seen_by(viewer)
    start = record.started
    n = len(record.seats)
    # Tournament chips are not money: whole chips, whatever the table's currency.
    currency = "CHIPS" if record.tournament else record.currency
    money = amount_writer(currency)
    hero = record.player_index(viewer)
    # OHH player ids: 0, 1, ... in seat order, as in the specification's examples.
    order = sorted(range(n), key=record.seats.__getitem__)
    pid = [0] * n
    for k, p in enumerate(order):
        pid[p] = k
    stacks = list(start.starting_stacks)
    bets = [0] * n
    street = 0
    actions: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = [{"id": 0, "street": "Preflop", "actions": actions}]
    showdown: list[dict[str, Any]] = []
    rakes: tuple[int, ...] = ()
    wins: dict[int, dict[int, int]] = {}

    def add(p: int, action: str, chips: int = 0) -> None:
        stacks[p] -= chips
        actions.append(
            {
                "action_number": len(actions) + 1,
                "player_id": pid[p],
                "action": action,
                "amount": money(chips),
                "is_allin": chips > 0 and stacks[p] == 0,
            }
        )

    for event in events[1:]:
        if isinstance(event, PlayerCalled):
            bets[event.player] += event.amount
            add(event.player, "Call", event.amount)
        elif isinstance(event, PlayerChecked):
            add(event.player, "Check")
        elif isinstance(event, PlayerFolded):
            add(event.player, "Fold")
        elif isinstance(event, RaisedTo | BetPlaced):
            p = event.player
            chips = event.amount - bets[p]
            bets[p] = event.amount
            # "Bet" is not a valid preflop action in OHH: the blinds are the first bet.
            add(p, "Bet" if isinstance(event, BetPlaced) and street else "Raise", chips)
        elif isinstance(event, BoardDealt):
            street = event.street
            bets = [0] * n
            actions = []
            rounds.append(
                {
                    "id": street,
                    "street": STREETS[street],
                    "cards": [format_card(c) for c in event.cards],
                    "actions": actions,
                }
            )
        elif isinstance(event, HoleCardsDealt):
            p = event.player
            if (viewer.full or p == hero) and UNKNOWN_CARD not in event.cards:
                add(p, "Dealt Cards")
                actions[-1]["cards"] = [format_card(c) for c in event.cards]
        elif isinstance(event, BlindPosted):
            bets[event.player] += event.amount
            add(event.player, _blind_action(event.player, n), event.amount)
        elif isinstance(event, AntePosted):
            # An ante is dead money: not part of the street's bets.
            add(event.player, "Post Ante", event.amount)
        elif isinstance(event, UncalledBetReturned):
            stacks[event.player] += event.amount
        elif isinstance(event, CardsShown):
            showdown.append(
                {
                    "action_number": len(showdown) + 1,
                    "player_id": pid[event.player],
                    "action": "Shows Cards",
                    "amount": money(0),
                    "is_allin": False,
                    "cards": [format_card(c) for c in event.cards],
                }
            )
        elif isinstance(event, CardsMucked):
            showdown.append(
                {
                    "action_number": len(showdown) + 1,
                    "player_id": pid[event.player],
                    "action": "Mucks Cards",
                    "amount": money(0),
                    "is_allin": False,
                }
            )
        elif isinstance(event, RakeTaken):
            rakes = event.amounts
        elif isinstance(event, PotAwarded):
            pot = wins.setdefault(event.pot, {})
            for w, amount in zip(event.winners, event.amounts, strict=True):
                pot[w] = pot.get(w, 0) + amount
    _posts_in_table_order(rounds[0]["actions"])
    if showdown:
        rounds.append({"id": len(rounds), "street": "Showdown", "actions": showdown})
    pots = []
    for k in sorted(wins):
        rake = rakes[k] if k < len(rakes) else 0
        pots.append(
            {
                "number": k,
                "amount": money(sum(wins[k].values()) + rake),
                "rake": money(rake),
                "player_wins": [
                    {"player_id": pid[w], "win_amount": money(a)} for w, a in wins[k].items()
                ],
            }
        )
    blinds = start.blinds_or_straddles
    out: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": VENUE,
        "network_name": VENUE,
        "internal_version": INTERNAL_VERSION,
        "tournament": record.tournament is not None,
    }
    if record.tournament is not None:
        out["tournament_info"] = tournament_info(record.tournament.facts)
    out |= {
        "game_number": str(record.hand_id),
        "start_date_utc": utc(record.started_at),
        "table_name": record.table_name,
        "game_type": GAME_TYPES[start.variant],
        "bet_limit": {"bet_type": BET_TYPES[start.variant], "bet_cap": money(0)},
        "table_size": record.max_seats,
        "currency": currency,
        "dealer_seat": record.button_seat,
        "small_blind_amount": money(blinds[0]),
        "big_blind_amount": money(blinds[1]),
        "ante_amount": money(max(start.antes, default=0)),
        "flags": [] if hero is not None else ["Observed"],
        "players": [
            {
                "id": pid[p],
                "seat": record.seats[p],
                "name": record.usernames[p],
                "starting_stack": money(start.starting_stacks[p]),
                "is_sitting_out": False,
            }
            for p in order
        ],
        "rounds": rounds,
        "pots": pots,
    }
    if hero is not None:
        out["hero_player_id"] = pid[hero]
    return out


def utc(when: datetime) -> str:
    """A time as the specification writes it: UTC, to the second, ``Z``."""
    return f"{when.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"


#: The specification names speeds but gives them no times: ours, by the minutes a level
#: lasts (at least that many minutes: that speed), slowest first.
SPEEDS = (
    (10, "Normal"),
    (7, "Semi-Turbo"),
    (5, "Turbo"),
    (3, "Super-Turbo"),
    (2, "Hyper-Turbo"),
    (0, "Ultra-Turbo"),
)


def speed(facts: TournamentFacts) -> dict[str, Any]:
    """The specification's speed object: the named speed of the level's length and the
    length in seconds. Levels counted in hands have no length: ``Normal``, 0 seconds."""
    minutes = facts.level_minutes
    if minutes is None:
        return {"type": "Normal", "round_time": 0}
    name = next(name for least, name in SPEEDS if minutes >= least)
    return {"type": name, "round_time": minutes * 60}


def tournament_info(facts: TournamentFacts) -> dict[str, Any]:
    """The tournament info object. ``buyin_amount`` is the part of the buy-in that goes
    to the prize pool, ``bounty_fee_amount`` the bounty and ``fee_amount`` the fee (a
    player paid their sum), in units of the tournament's currency; ``type`` is ``STT``
    for a tournament of one table, ``MTT`` for more; ``flags`` ``SNG`` for a sit-and-go,
    ``Bounty`` with a bounty."""
    money = amount_writer(facts.currency)
    flags = [flag for flag, on in (("SNG", facts.sit_and_go), ("Bounty", facts.bounty)) if on]
    return {
        "tournament_number": str(facts.tournament_id),
        "name": facts.name,
        "start_date_utc": utc(facts.started_at),
        "currency": facts.currency,
        "buyin_amount": money(facts.prize_buy_in),
        "fee_amount": money(facts.fee),
        "bounty_fee_amount": money(facts.bounty),
        "initial_stack": facts.starting_stack,
        "type": "MTT" if facts.multi_table else "STT",
        "flags": flags,
        "speed": speed(facts),
    }


def hand_ohh(record: HandRecord, viewer: Viewer) -> str:
    """One hand as an OHH JSON document (``{"ohh": {...}}`` and a newline)."""
    return orjson.dumps({"ohh": hand_object(record, viewer)}).decode() + "\n"
