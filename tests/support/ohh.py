"""A small independent reader of Open Hand History exports: our events' actions, amounts,
pots and stacks back in exact integer minor units, checked against the shipped schema."""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache
from typing import Any

import jsonschema

from handhistory.exports import ohh
from handhistory.exports.records import HandRecord, Viewer
from poker.engine.events import (
    AntePosted,
    BetPlaced,
    BlindPosted,
    HandEnded,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    PotAwarded,
    RaisedTo,
    RakeTaken,
)

VERBS = {
    "Post Ante": "ante",
    "Post SB": "blind",
    "Post BB": "blind",
    "Straddle": "blind",
    "Post Extra Blind": "blind",
    "Fold": "fold",
    "Check": "check",
    "Call": "call",
    "Bet": "bet",
    "Raise": "raise",
}


@cache
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(ohh.SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def valid(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` after checking it against the shipped schema; returns its hand."""
    errors = sorted(validator().iter_errors(document), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    return document["ohh"]


def load(text: str) -> dict[str, Any]:
    # Decimal, not float: the test checks the exact text, as a careful reader would.
    return json.loads(text, parse_float=Decimal)


def minor(value: Any, currency: str) -> int:
    """An OHH amount back in integer minor units, refusing any fraction of one."""
    exact = Decimal(value) * (1 if currency == "CHIPS" else 100)
    assert exact == exact.to_integral_value(), value
    return int(exact)


def reread(hand: dict[str, Any]) -> dict[str, Any]:
    """What an OHH reader learns from one hand: actions in our events' terms (bet and raise
    amounts as street totals, calls as chips added), each pot's wins and rake, and the final
    stacks, all by seat and in minor units."""
    currency = hand["currency"]
    seat = {p["id"]: p["seat"] for p in hand["players"]}
    stacks = {p["seat"]: minor(p["starting_stack"], currency) for p in hand["players"]}
    put = dict.fromkeys(stacks, 0)
    actions: list[tuple[int, str, int]] = []
    shown: dict[int, list[str]] = {}
    dealt: dict[int, list[str]] = {}
    for rnd in sorted(hand["rounds"], key=lambda r: r["id"]):
        street_bets = dict.fromkeys(stacks, 0)
        for a in rnd["actions"]:
            s, chips = seat[a["player_id"]], minor(a["amount"], currency)
            if a["action"] == "Shows Cards":
                shown[s] = a["cards"]
            elif a["action"] == "Dealt Cards":
                dealt[s] = a["cards"]
            elif a["action"] in VERBS:
                verb = VERBS[a["action"]]
                put[s] += chips
                if verb != "ante":
                    street_bets[s] += chips
                amount = street_bets[s] if verb in ("bet", "raise") else chips
                actions.append((s, verb, amount))
    # OHH has no uncalled-bet action: what the largest contributor put in beyond the
    # second largest went back to them.
    (top, most), (_, second) = sorted(put.items(), key=lambda kv: -kv[1])[:2]
    put[top] -= most - second
    pots = {}
    for pot in hand["pots"]:
        wins = {seat[w["player_id"]]: minor(w["win_amount"], currency) for w in pot["player_wins"]}
        rake = minor(pot["rake"], currency)
        assert sum(wins.values()) + rake == minor(pot["amount"], currency)
        pots[pot["number"]] = (wins, rake)
    final = {s: stacks[s] - put[s] + sum(w.get(s, 0) for w, _ in pots.values()) for s in stacks}
    return {"actions": actions, "pots": pots, "final": final, "shown": shown, "dealt": dealt}


def from_events(record: HandRecord) -> dict[str, Any]:
    """The same facts straight from our events."""
    seat = record.seats
    actions: list[tuple[int, str, int]] = []
    pots: dict[int, tuple[dict[int, int], int]] = {}
    rakes: tuple[int, ...] = ()
    final: dict[int, int] = {}
    for e in record.events:
        if isinstance(e, AntePosted):
            actions.append((seat[e.player], "ante", e.amount))
        elif isinstance(e, BlindPosted):
            actions.append((seat[e.player], "blind", e.amount))
        elif isinstance(e, PlayerFolded):
            actions.append((seat[e.player], "fold", 0))
        elif isinstance(e, PlayerChecked):
            actions.append((seat[e.player], "check", 0))
        elif isinstance(e, PlayerCalled):
            actions.append((seat[e.player], "call", e.amount))
        elif isinstance(e, BetPlaced):
            actions.append((seat[e.player], "bet", e.amount))
        elif isinstance(e, RaisedTo):
            actions.append((seat[e.player], "raise", e.amount))
        elif isinstance(e, RakeTaken):
            rakes = e.amounts
        elif isinstance(e, PotAwarded):
            wins = pots.setdefault(e.pot, ({}, rakes[e.pot] if rakes else 0))[0]
            for w, amount in zip(e.winners, e.amounts, strict=True):
                wins[seat[w]] = wins.get(seat[w], 0) + amount
        elif isinstance(e, HandEnded):
            final = dict(zip(seat, e.final_stacks, strict=True))
    return {"actions": actions, "pots": pots, "final": final}


def forced_then_played(actions: list[tuple[int, str, int]]) -> tuple[list[Any], list[Any]]:
    """The forced bets (whose order a dealer calls, not the engine's) and the decisions."""
    forced = [a for a in actions if a[1] in ("ante", "blind")]
    return sorted(forced), [a for a in actions if a[1] not in ("ante", "blind")]


def assert_rereads_as_played(record: HandRecord, viewer: Viewer) -> dict[str, Any]:
    hand = valid(load(ohh.hand_ohh(record, viewer)))
    mine, theirs = from_events(record), reread(hand)
    assert forced_then_played(theirs["actions"]) == forced_then_played(mine["actions"])
    assert theirs["pots"] == mine["pots"]
    assert theirs["final"] == mine["final"]
    return theirs
