"""Export texts stored once per hand: a template any viewer's text is made from.

A hand's text in one format differs between viewers only where the privacy rule lets one
viewer see more than another (a player's own hole cards, staff's every card and seed, the
hero fields). :func:`build` calls the format's formatter once per possible view of the
hand -- a spectator, staff, and each player -- and keeps what they share once, with a
*slot* wherever they differ holding each view's own text. :func:`render` picks a
viewer's text back out with a join: no formatter, no privacy decision, no event decoding.

So visibility is still decided by the one rule (``HandRecord.seen_by`` ->
``poker.engine.privacy.as_seen_by``) inside the formatters, and the text from a template is by
construction the formatter's text for that viewer (tests/handhistory/test_stored_texts.py
checks it for every viewer and format on hands of every kind).

A template is ``{"p": player ids in engine order, "t": [fixed, slot, fixed, ..., fixed]}``
where a slot is ``[spectator's text, staff's text, players']`` and players' is one text
shared by every player or a list, one per player in engine order.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from handhistory.exports.records import STAFF, HandRecord, Viewer


def _tokens(text: str) -> list[str]:
    """``text`` cut where views' differences begin or end: after each newline (a line of
    PHH or PokerStars text), before each ``{`` and after the first field of each object
    (OHH's one-line JSON: an action's renumbered ``action_number`` is a token of its own,
    the rest of the action is shared). Joined, the tokens are the text."""
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        first, *objects = line.split("{")
        if first:
            out.append(first)
        for o in objects:
            head, comma, rest = o.partition(",")
            out.append("{" + head + comma)
            if rest:
                out.append(rest)
    return out


Template = dict[str, Any]


def build(record: HandRecord, hand: Any) -> Template:
    """The template of ``record`` for the formatter ``hand(record, viewer) -> str``."""
    n = len(record.player_ids)
    views = [hand(record, Viewer()), hand(record, STAFF)] + [
        hand(record, Viewer(user_id=user)) for user in record.player_ids
    ]
    return {"p": list(record.player_ids), "t": _merge(views, n)}


def _merge(texts: Sequence[str], n: int) -> list[Any]:
    """Fixed parts and slots from the views' texts (``texts[0]`` the base)."""
    base = _tokens(texts[0])
    # Each view's edits of the base: (start, end, tokens in their place).
    edits = [[]] + [_edits(base, _tokens(text)) for text in texts[1:]]
    # The base's stretches some view changes, merged where they overlap or touch.
    spans: list[list[int]] = []
    for start, end in sorted((s, e) for view in edits for s, e, _ in view):
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    parts: list[Any] = []
    done = 0
    for start, end in spans:
        parts.append("".join(base[done:start]))
        values = [_apply(base, start, end, view) for view in edits]
        players = values[2:]
        shared = all(v == players[0] for v in players) if players else True
        parts.append([values[0], values[1], players[0] if shared and n else players])
        done = end
    parts.append("".join(base[done:]))
    return parts


def _edits(base: list[str], other: list[str]) -> list[tuple[int, int, list[str]]]:
    """How ``other`` differs from ``base``: (start, end, tokens in place of base[start:end]).

    Views differ in a few places: the common head and tail are skipped before the diff.
    """
    if other == base:
        return []
    head, most = 0, min(len(base), len(other))
    while head < most and base[head] == other[head]:
        head += 1
    tail = 0
    while tail < most - head and base[-1 - tail] == other[-1 - tail]:
        tail += 1
    a, b = base[head : len(base) - tail], other[head : len(other) - tail]
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [(head + i1, head + i2, b[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def _apply(base: list[str], start: int, end: int, edits: list[tuple[int, int, list[str]]]) -> str:
    """``base[start:end]`` with the view's edits that fall in it applied."""
    out: list[str] = []
    at = start
    for s, e, tokens in edits:
        if s < start or e > end:
            continue
        out += base[at:s]
        out += tokens
        at = e
    out += base[at:end]
    return "".join(out)


def render(template: Template, viewer: Viewer) -> str:
    """``viewer``'s text from ``template``: staff's, a player's own, or a spectator's."""
    parts = template["t"]
    if len(parts) == 1:
        return parts[0]  # type: ignore[no-any-return]  # a template's parts are JSON from the database
    if viewer.full:
        return "".join([p if type(p) is str else p[1] for p in parts])
    players = template["p"]
    if viewer.user_id not in players:
        return "".join([p if type(p) is str else p[0] for p in parts])
    me = players.index(viewer.user_id)
    return "".join(
        [p if type(p) is str else p[2] if type(p[2]) is str else p[2][me] for p in parts]
    )
