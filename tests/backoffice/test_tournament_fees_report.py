"""Tournament fees in the rake report: per day and currency, the fees the house kept
(fees taken less fees refunded), from the ledger's house tournament-fees account."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from backoffice.reports import Period, tournament_fees_report
from tests.tournaments import conftest as tournament_fixtures
from tournaments.services import tournament_register, tournament_unregister

pytestmark = pytest.mark.django_db

director, funded, make_tournament = (
    tournament_fixtures.director, tournament_fixtures.funded, tournament_fixtures.make_tournament
)  # fmt: skip


def test_tournament_fees_are_reported_per_day_net_of_refunds(
    make_tournament, funded, make_user, client
):
    first, second = make_tournament(fee=100), make_tournament(fee=250)
    ann, bob = funded(), funded()
    tournament_register(tournament_id=first.pk, player=ann)
    tournament_register(tournament_id=first.pk, player=bob)
    tournament_unregister(tournament_id=first.pk, player=bob)
    tournament_register(tournament_id=second.pk, player=bob)
    today = datetime.now(UTC).date().isoformat()

    rows = tournament_fees_report(period=Period.last())

    assert rows == [{"key": today, "currency": "EUR", "tournaments": 2, "fees": 350}]
    assert (
        tournament_fees_report(period=Period(since=date(2020, 1, 1), until=date(2020, 1, 2))) == []
    )
    client.force_login(make_user(role="support"))
    page = client.get("/staff/reports/rake/day/").content.decode()
    assert page.count('data-testid="fees-row"') == 1
    assert "€3.50" in page
