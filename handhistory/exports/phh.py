"""PHH (phh-std) export: ``.phh`` for one hand, ``.phhs`` (TOML tables ``[1]``, ``[2]``, ...)
for many.

The variant, stakes, stacks and actions come from the engine's own writer
(:func:`poker.engine.phh.dumps`, which ``replay_phh`` reads back); this module adds the
optional fields (players, seats, table, hand, time, currency, finishing stacks) and the
custom ones: ``_rake`` (chips the house took; ``_rake_bps``/``_rake_cap``/
``_rake_no_flop_no_drop`` give the rule), ``_amounts`` (amounts are integer minor units,
which PHH has no field for) and ``_server_seed`` only where the privacy rule lets it out.
Cards the viewer may not see are ``????``.
"""

from __future__ import annotations

import json
from datetime import UTC

from handhistory.exports.records import HandRecord, Viewer
from poker.engine.events import HandEnded, PotAwarded, RakeTaken
from poker.engine.phh import dumps

VENUE = "pokerbackend"


def _str(value: str) -> str:
    # JSON's string escapes are all valid TOML basic-string escapes (json never writes \/).
    return json.dumps(value)


def hand_phh(record: HandRecord, viewer: Viewer) -> str:
    """One hand as a PHH document, as ``viewer`` may see it."""
    events = record.seen_by(viewer)
    when = record.started_at.astimezone(UTC)
    rakes = next((e.amounts for e in events if isinstance(e, RakeTaken)), ())
    pots: dict[int, int] = {}
    for e in events:
        if isinstance(e, PotAwarded):
            pots[e.pot] = pots.get(e.pot, 0) + sum(e.amounts)
    gross = [amount + (rakes[k] if rakes else 0) for k, amount in sorted(pots.items())]
    seed = next((e.server_seed for e in events if isinstance(e, HandEnded)), "")
    lines = [
        dumps(events).rstrip("\n"),
        f"venue = {_str(VENUE)}",
        f"hand = {record.hand_id}",
        f"table = {_str(record.table_name)}",
        f"seats = {json.dumps(list(record.seats))}",
        f"seat_count = {record.max_seats}",
        f"players = [{', '.join(_str(u) for u in record.usernames)}]",
        f"currency = {_str(record.currency)}",
        f"time = {when:%H:%M:%S}",
        'time_zone = "UTC"',
        f"year = {when.year}",
        f"month = {when.month}",
        f"day = {when.day}",
        f"_rake = {sum(rakes)}",
        # Each pot before rake and the rake taken from it: a reader raking per pot (pokerkit)
        # can take exactly what was taken.
        f"_pots = {json.dumps(gross)}",
        f"_rake_pots = {json.dumps(list(rakes) or [0] * len(gross))}",
        '_amounts = "integer minor units of currency"',
        f"_table_id = {record.table_id}",
        f"_hand_number = {record.number}",
        f"_deck_commitment = {_str(record.started.deck_commitment)}",
    ]
    if seed:
        lines.append(f"_server_seed = {_str(seed)}")
    return "\n".join(lines) + "\n"


def table_header(k: int) -> str:
    """The TOML table heading hand ``k`` (from 1) of a ``.phhs`` document."""
    return f"[{k}]\n"
