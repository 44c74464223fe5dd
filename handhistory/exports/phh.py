"""PHH (phh-std) export: ``.phh`` for one hand, ``.phhs`` (TOML tables ``[1]``, ``[2]``, ...)
for many.

The variant, stakes, stacks and actions come from the engine's own writer
(:func:`poker.engine.phh.dumps`, which ``replay_phh`` reads back); this module adds the
optional fields (players, seats, table, hand, time, currency, finishing stacks) and the
custom ones: ``_rake`` (chips the house took; ``_rake_bps``/``_rake_cap``/
``_rake_no_flop_no_drop`` give the rule), ``_amounts`` (amounts are integer minor units,
which PHH has no field for) and ``_server_seed`` only where the privacy rule lets it out.
Cards the viewer may not see are ``????``.

A tournament hand names its tournament in the fields PHH has for it, ``event`` (the
tournament's name) and ``level`` (from 1), has no ``currency`` (its chips are tournament
chips: ``_amounts`` says so) and adds ``_tournament`` (the id), ``_tournament_table`` (the
table's number in it), ``_buy_in`` (the bounty included, as the tournament API states
it), ``_bounty``, ``_fee`` and ``_buy_in_currency`` (integer minor units of that
currency) and ``_starting_stack``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC
from json.encoder import encode_basestring_ascii

from handhistory.exports.records import HandRecord, Viewer
from handhistory.exports.tournaments import TournamentHand
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
    tournament = record.tournament
    lines = [
        dumps(events).rstrip("\n"),
        f"venue = {_str(VENUE)}",
        f"hand = {record.hand_id}",
        f"table = {_str(record.table_name)}",
        f"seats = {_ints(record.seats)}",
        f"seat_count = {record.max_seats}",
        f"players = [{', '.join(map(_str, record.usernames))}]",
        *(
            _tournament_fields(tournament)
            if tournament
            else [f"currency = {_str(record.currency)}"]
        ),
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
        f"_amounts = {_str(TOURNAMENT_CHIPS if tournament else MINOR_UNITS)}",
        f"_table_id = {record.table_id}",
        f"_hand_number = {record.number}",
        f"_deck_commitment = {_str(record.started.deck_commitment)}",
    ]
    if seed:
        lines.append(f"_server_seed = {_str(seed)}")
    if tournament:
        lines += _tournament_money(tournament)
    return "\n".join(lines) + "\n"


MINOR_UNITS = "integer minor units of currency"
TOURNAMENT_CHIPS = "tournament chips"


def _tournament_fields(tournament: TournamentHand) -> list[str]:
    """The fields PHH has for a tournament: its name and the level."""
    lines = [f"event = {_str(tournament.facts.name)}"]
    if tournament.level is not None:
        lines.append(f"level = {tournament.level}")
    return lines


def _tournament_money(tournament: TournamentHand) -> list[str]:
    """Our own fields: which tournament and table, what a player paid, the starting stack."""
    facts = tournament.facts
    return [
        f"_tournament = {facts.tournament_id}",
        f"_tournament_table = {tournament.table_number}",
        f"_buy_in = {facts.buy_in}",
        f"_bounty = {facts.bounty}",
        f"_fee = {facts.fee}",
        f"_buy_in_currency = {_str(facts.currency)}",
        f"_starting_stack = {facts.starting_stack}",
    ]


def table_header(k: int) -> str:
    """The TOML table heading hand ``k`` (from 1) of a ``.phhs`` document."""
    return f"[{k}]\n"
