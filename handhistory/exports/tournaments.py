"""What the exports of a tournament hand say of its tournament, and where they learn it.

A hand at a tournament table knows its tournament only by the table's ``tournament_id``
and ``tournament_table``; the tournament's identity (name, buy-in, fee, bounty, currency,
starting stack, kind, start, structure) lives in ``tournaments``, which sits above this
app. So this module states what it needs (:class:`TournamentFacts`) and the tournaments app
fills the reader in its ``AppConfig.ready()`` (:func:`tournament_facts_register`); nothing
here imports it.

Everything in the facts is fixed once the tournament has started (before its first hand):
a text derived at a hand's end (``stored_texts``) stays true.

The level a hand was dealt at is not recorded with the hand: it is the level whose big
blind the hand was dealt (``HandStarted``). A structure's big blind rises at every level
(``tournaments.rules.structure``, checked by the clock every tournament table reads at
every deal), so the big blind names exactly one level, for every hand ever dealt, and the
hand's events stay the one record of what was dealt.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime

from core.errors import Conflict


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentFacts:
    """A tournament as its hands' exports describe it. Amounts are integer minor units of
    ``currency`` (what a player pays: ``buy_in``, the bounty included, plus ``fee``);
    ``starting_stack`` is in tournament chips."""

    tournament_id: int
    name: str
    sit_and_go: bool
    #: More players than one table seats (a multi-table tournament).
    multi_table: bool
    currency: str
    buy_in: int
    fee: int
    bounty: int
    starting_stack: int
    started_at: datetime
    #: Each level's big blind, level 1 first.
    big_blinds: tuple[int, ...]
    #: How long a level lasts: minutes, or None when the levels are counted in hands.
    level_minutes: int | None

    @property
    def prize_buy_in(self) -> int:
        """The part of the buy-in that goes to the prize pool (the rest is the bounty)."""
        return self.buy_in - self.bounty

    def level_of(self, big_blind: int) -> int | None:
        """The level (from 1) whose big blind is ``big_blind``; None if no level has it."""
        if big_blind in self.big_blinds:
            return self.big_blinds.index(big_blind) + 1
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentHand:
    """A hand's place in its tournament: the tournament, the table's number in it, and the
    level the hand was dealt at (None when its big blind is no level's)."""

    facts: TournamentFacts
    table_number: int
    level: int | None


#: ``reader(tournament_ids) -> {tournament_id: facts}`` for the tournaments that have
#: started among the ids.
TournamentReader = Callable[[Collection[int]], Mapping[int, TournamentFacts]]

_READER: list[TournamentReader] = []


class TournamentFactsMissing(Conflict):
    default_code = "tournament_facts_missing"


def tournament_facts_register(reader: TournamentReader) -> None:
    """Registers (or replaces) the app that knows tournaments (its ``ready()``)."""
    _READER[:] = [reader]


def tournament_facts(tournament_ids: Collection[int]) -> dict[int, TournamentFacts]:
    """The facts of every tournament in ``tournament_ids``: a hand of a tournament is never
    exported as a cash hand, so a tournament the reader does not know (or no reader) is
    refused (``tournament_facts_missing``)."""
    wanted = set(tournament_ids)
    if not wanted:
        return {}
    found = dict(_READER[0](wanted)) if _READER else {}
    missing = sorted(wanted - found.keys())
    if missing:
        raise TournamentFactsMissing(
            f"The hands of tournaments {missing} cannot be exported: "
            + (
                "no tournament app is registered (tournament_facts_register)."
                if not _READER
                else "they are unknown or have not started."
            ),
            tournaments=missing,
        )
    return found
