"""What a tournament tells hand-history tools: the facts its hands' exports print (read
through ``handhistory.exports.tournaments``, which ``apps.py`` fills with
:func:`tournament_hand_facts`).
"""

from __future__ import annotations

from collections.abc import Collection

from handhistory.exports.tournaments import TournamentFacts
from tournaments.models import Tournament


def _facts(tournament: Tournament) -> TournamentFacts:
    assert tournament.started_at is not None
    return TournamentFacts(
        tournament_id=tournament.pk,
        name=tournament.name,
        sit_and_go=tournament.kind == Tournament.Kind.SIT_AND_GO,
        multi_table=tournament.max_players > tournament.seats_per_table,
        currency=tournament.currency,
        buy_in=tournament.buy_in,
        fee=tournament.fee,
        bounty=tournament.bounty,
        starting_stack=tournament.starting_stack,
        started_at=tournament.started_at,
        big_blinds=tuple(level["big_blind"] for level in tournament.levels),
        level_minutes=tournament.levels[0].get("minutes"),
    )


def tournament_hand_facts(tournament_ids: Collection[int]) -> dict[int, TournamentFacts]:
    """The facts of the started tournaments among ``tournament_ids`` (one query): the
    reader of ``handhistory.exports.tournaments``. A tournament deals no hand before its
    start, so every tournament hand's tournament is among them."""
    started = Tournament.objects.filter(pk__in=tournament_ids, started_at__isnull=False)
    return {t.pk: _facts(t) for t in started}
