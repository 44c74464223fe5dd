"""Names on the wire (docs/protocol.md): the ambiguous keys and wording to look for, and
an update-log row as written before the rename."""

from __future__ import annotations

import re
from typing import Any

from handhistory.models import Hand

#: Keys that would name a player ambiguously (an engine index, a user id or a username).
AMBIGUOUS = {"player", "player_id", "actor", "players_ids"}


ENGINE_INDEX_WORDING = re.compile(r"\bplayers?\b")


def ambiguous_keys(value: Any, path: str = "") -> list[str]:
    """Every path in ``value`` whose key is an ambiguous name for a person."""
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k in AMBIGUOUS:
                found.append(f"{path}.{k}")
            found.extend(ambiguous_keys(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found.extend(ambiguous_keys(v, f"{path}[{i}]"))
    return found


def old_update(version: int, hand: Hand, alice: Any, bob: Any) -> dict[str, Any]:
    """An update-log row exactly as the code before the rename wrote it."""
    return {
        "type": "update",
        "version": version,
        "events": [
            {"kind": "table", "event": {"type": "PlayerSat", "seat": 5, "player": alice.pk,
                                        "buy_in": 10_000}},
            {"kind": "table", "event": {"type": "ChatPosted", "seat": 5, "player_id": alice.pk,
                                        "player": "alice", "text": "hi"}},
            {"kind": "hand", "hand": hand.pk, "events": [
                {"type": "PlayerFolded", "version": 1, "player": 1, "seat": hand.seat_numbers[1]},
                {"type": "PotAwarded", "version": 1, "pot": 0, "winners": [0],
                 "amounts": [150], "hand": ""},
            ]},
            {"kind": "table", "event": {"type": "TurnStarted", "hand": hand.pk, "seat": 3,
                                        "player": bob.pk, "started_at": "x", "deadline": "y",
                                        "time_bank_ms": 0}},
        ],
        "public": {"seats": [
            {"seat": 3, "player": "bob", "player_id": bob.pk, "state": "active"},
            {"seat": 5, "player": "alice", "player_id": alice.pk, "state": "active"},
        ], "hand": None},
    }  # fmt: skip
