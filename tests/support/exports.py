"""What a client reads of the exports: the hand API, the export jobs API, and every card
and deck secret an exported text shows."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from handhistory.exports.records import HandRecord
from poker.engine.events import HandEnded


def export(client: Any, hand_id: int, fmt: str, **params: Any) -> Any:
    return client.get(f"/api/v1/hands/{hand_id}/", {"format": fmt, **params})


def post(client: Any, body: dict[str, Any], **headers: str) -> Any:
    return client.post("/api/v1/exports/", body, format="json", **headers)


def download(client: Any, job_id: int) -> Any:
    return client.get(f"/api/v1/exports/{job_id}/download/")


def content(response: Any) -> str:
    return b"".join(response.streaming_content).decode()


CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


def visible_cards(fmt: str, text: str) -> set[str]:
    """Every card one hand's export shows, read the way that format's readers read it."""
    if fmt == "phh":
        cards: list[str] = []
        for action in tomllib.loads(text)["actions"]:
            parts = action.split()
            dealt = parts[3:] if parts[1] == "dh" else parts[2:]
            if parts[1] in ("dh", "db", "sm") and dealt:
                cards += [dealt[0][i : i + 2] for i in range(0, len(dealt[0]), 2)]
        return {c for c in cards if c != "??"}
    if fmt == "pokerstars":
        inside = re.findall(r"\[([^\]]*)\]", text)
        return {t for group in inside for t in group.split() if CARD.match(t)}
    if fmt == "ohh":
        hand = json.loads(text)["ohh"]
        found = {c for r in hand["rounds"] for c in r.get("cards") or []}
        return found | {c for r in hand["rounds"] for a in r["actions"] for c in a.get("cards", [])}
    raise AssertionError(f"no card reader for the {fmt!r} format: add one to this proof")


def secrets_of(record: HandRecord) -> set[str]:
    """The deck secrets of a hand as stored (the seed rebuilds every hole card)."""
    start = record.started
    ended = next(e for e in record.events if isinstance(e, HandEnded))
    return {s for s in (start.server_seed, ended.server_seed) if s}
