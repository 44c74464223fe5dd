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

from collections.abc import Iterable
from datetime import UTC
from json.encoder import encode_basestring_ascii

from handhistory.exports.records import HandRecord, Viewer
from poker.engine.events import HandEnded, PotAwarded, RakeTaken
from poker.engine.phh import dumps

VENUE = "pokerbackend"


#: A JSON string, which is also a valid TOML basic string (json never writes ``\/``): what
#: ``json.dumps`` gives for a ``str``, without its dispatch.
_str = encode_basestring_ascii


def _ints(values: Iterable[int]) -> str:
    """A list of integers as JSON and TOML write it."""
    return "[" + ", ".join(map(str, values)) + "]"


def hand_phh(record: HandRecord, viewer: Viewer) -> str:
    """One hand as a PHH document, as ``viewer`` may see it."""
    events = record.seen_by(viewer)
    when = record.started_at.astimezone(UTC)
    rakes: tuple[int, ...] = ()
    pots: dict[int, int] = {}
    seed = ""
    for e in events:
        if isinstance(e, PotAwarded):
            pots[e.pot] = pots.get(e.pot, 0) + sum(e.amounts)
        elif isinstance(e, RakeTaken) and not rakes:
            rakes = e.amounts
        elif isinstance(e, HandEnded) and not seed:
            seed = e.server_seed
    gross = [amount + (rakes[k] if rakes else 0) for k, amount in sorted(pots.items())]
    lines = [
        dumps(events).rstrip("\n"),
        f"venue = {_str(VENUE)}",
        f"hand = {record.hand_id}",
        f"table = {_str(record.table_name)}",
        f"seats = {_ints(record.seats)}",
        f"seat_count = {record.max_seats}",
        f"players = [{', '.join(map(_str, record.usernames))}]",
        f"currency = {_str(record.currency)}",
        f"time = {when:%H:%M:%S}",
        'time_zone = "UTC"',
        f"year = {when.year}",
        f"month = {when.month}",
        f"day = {when.day}",
        f"_rake = {sum(rakes)}",
        # Each pot before rake and the rake taken from it: a reader raking per pot (pokerkit)
        # can take exactly what was taken.
        f"_pots = {_ints(gross)}",
        f"_rake_pots = {_ints(rakes or [0] * len(gross))}",
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
