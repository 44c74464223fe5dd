"""Provably fair deals in tests: seating, a hand's HandStarted, folding a hand to its
end, and the worked example of docs/provably-fair.md."""

from __future__ import annotations

import re
from pathlib import Path

from handhistory.models import Event as EventRow
from poker.commands.play import table_act
from poker.commands.seating import table_sit
from poker.engine.events import HandStarted, event_from_dict
from poker.models import Table
from poker.selectors import table_view
from tests.support.poker import actor_for, key


def sit(t, users, buy_in=5_000):
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=buy_in, key=key(), actor=actor_for(u))


def started(hand_id: int) -> HandStarted:
    row = EventRow.objects.get(stream=f"hand-{hand_id}", seq=1)
    event = event_from_dict(row.payload)
    assert isinstance(event, HandStarted)
    return event


def fold_current_hand(t) -> int:
    """Folds (or checks) the running hand to its end; returns its id."""
    hand_id = Table.objects.get(pk=t.pk).current_hand_id
    while Table.objects.get(pk=t.pk).current_hand_id == hand_id:
        view = table_view(table_id=t.pk, viewer_id=None)
        seat = next(s for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
        options = table_view(table_id=t.pk, viewer_id=seat["user_id"])["you"]["legal_actions"]
        action = "check" if "check" in options["actions"] else "fold"
        table_act(table_id=t.pk, player_id=seat["user_id"], action=action, amount=None,
                  key=key(), actor=actor_for(user_of(seat["user_id"])))  # fmt: skip
    return hand_id


def user_of(user_id: int):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=user_id)


DOC = Path(__file__).resolve().parents[2] / "docs" / "provably-fair.md"


def example() -> dict[str, str]:
    text = DOC.read_text()
    block = re.search(r"## Worked example.*?```text\n(.*?)```", text, re.S)
    assert block, "the worked example block is missing"
    return dict(line.split(": ", 1) for line in block.group(1).strip().splitlines())
