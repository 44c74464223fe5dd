"""Real threads on real PostgreSQL: registrations racing for the last seats never overfill
the field, and each player holds one entry, paid once."""

from __future__ import annotations

import pytest

from ledger.audit import ledger_audit
from ledger.models import AccountKind
from tests.support.threads import at_once, concurrently
from tests.support.tournaments import cash, tournament_balances
from tournaments.errors import AlreadyRegistered, TournamentFull
from tournaments.models import Entry
from tournaments.services import tournament_register

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("ledger-concurrency"),
]


def test_fifty_players_racing_for_the_last_seats_never_overfill_the_field(make_tournament, funded):
    tournament = make_tournament(min_players=2, max_players=30, seats_per_table=9)
    for _ in range(20):
        tournament_register(tournament_id=tournament.pk, player=funded())
    racers = [funded(2_000) for _ in range(50)]

    results = concurrently(
        *[lambda p=p: tournament_register(tournament_id=tournament.pk, player=p) for p in racers]
    )

    won = [p for p, r in zip(racers, results, strict=True) if isinstance(r, Entry)]
    assert len(won) == 10
    assert all(isinstance(r, (Entry, TournamentFull)) for r in results), results
    live = Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
    assert live.count() == 30
    assert sorted(cash(p) for p in racers) == [900] * 10 + [2_000] * 40
    assert tournament_balances(tournament)[AccountKind.TOURNAMENT_POOL] == 30 * 800
    assert ledger_audit().ok


def test_one_player_registering_from_ten_threads_is_registered_and_pays_once(
    make_tournament, funded
):
    tournament, player = make_tournament(), funded(5_000)

    results = at_once(10, lambda: tournament_register(tournament_id=tournament.pk, player=player))

    assert sum(isinstance(r, Entry) for r in results) == 1
    assert all(isinstance(r, (Entry, AlreadyRegistered)) for r in results), results
    assert cash(player) == 5_000 - 1_100
    assert ledger_audit().ok
