# ruff: noqa: F811 - the shared table fixture is imported by name, then requested as an argument
"""The tournament pages: the lobby's tabs and filters, a tournament's page (structure,
buy-in in the currency's units, entrants, payouts, your table, your place and prize), and
registering and unregistering from it, where a refusal is said in words and moves nothing."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from poker.models import Table
from tests.poker.conftest import table  # noqa: F401 - the shared table fixture
from tests.support.tournaments import cash, records
from tournaments.models import Entry, Tournament
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db


def _logged_in(client, user):
    client.force_login(user)
    return client


def test_the_lobby_shows_sit_and_goes_by_default_and_scheduled_ones_on_their_tab(
    client, make_tournament
):
    sng = make_tournament(name="Six-max turbo")
    scheduled = make_tournament(
        name="Sunday major", start=timezone.now() + datetime.timedelta(hours=2), max_players=100
    )

    page = client.get("/tournaments/").content.decode()
    assert f'data-testid="tournament-row-{sng.pk}"' in page
    assert f'data-testid="tournament-row-{scheduled.pk}"' not in page
    assert "€10.00+€1.00" in page  # the buy-in and the fee, in euros

    page = client.get("/tournaments/?kind=scheduled").content.decode()
    assert f'data-testid="tournament-row-{scheduled.pk}"' in page
    assert f'data-testid="tournament-row-{sng.pk}"' not in page
    assert f'data-countdown="{scheduled.starts_at.isoformat()}"' in page


def test_the_lobby_filters_by_status_and_ignores_unknown_filter_values(client, make_tournament):
    open_ = make_tournament(name="Open")
    cancelled = make_tournament(name="Gone")
    Tournament.objects.filter(pk=cancelled.pk).update(status=Tournament.Status.CANCELLED)

    page = client.get("/tournaments/?status=cancelled").content.decode()
    assert f"tournament-row-{cancelled.pk}" in page and f"tournament-row-{open_.pk}" not in page
    page = client.get("/tournaments/?status=nonsense&variant=XX&currency=ZZZ").content.decode()
    assert f"tournament-row-{cancelled.pk}" in page and f"tournament-row-{open_.pk}" in page


def test_a_tournament_page_shows_its_structure_payouts_and_a_register_button(
    client, make_tournament, funded
):
    tournament = make_tournament(payouts=["65", "35"])
    player = funded()

    page = _logged_in(client, player).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'data-testid="structure"' in page and "25/50" in page  # the third level
    assert 'data-testid="register"' in page and "Register for €11.00" in page
    assert 'data-testid="payouts"' in page
    assert client.get("/tournaments/999999/").status_code == 404


def test_registering_from_the_page_pays_the_buy_in_and_shows_you_registered(
    client, make_tournament, funded
):
    tournament = make_tournament()
    player = funded()
    before = cash(player)

    answer = _logged_in(client, player).post(f"/tournaments/{tournament.pk}/register/")

    assert answer.status_code == 302 and answer["Location"] == f"/tournaments/{tournament.pk}/"
    assert cash(player) == before - 1_100
    page = client.get(answer["Location"]).content.decode()
    assert "You are registered." in page and 'data-testid="you-registered"' in page
    assert 'data-testid="unregister"' in page and 'data-testid="register"' not in page


def test_unregistering_from_the_page_refunds_the_buy_in_and_fee(client, make_tournament, funded):
    tournament = make_tournament()
    player = funded()
    before = cash(player)
    tournament_register(tournament_id=tournament.pk, player=player)

    _logged_in(client, player).post(f"/tournaments/{tournament.pk}/unregister/")

    assert cash(player) == before
    entry = Entry.objects.get(tournament=tournament, player=player)
    assert entry.status == Entry.Status.UNREGISTERED


def test_a_registration_refused_for_money_is_said_in_euros_and_moves_nothing(
    client, make_tournament, funded
):
    tournament = make_tournament()
    poor = funded(amount=500)
    before = records()

    answer = _logged_in(client, poor).post(f"/tournaments/{tournament.pk}/register/", follow=True)

    assert "Insufficient funds: €5.00 available, €11.00 needed." in answer.content.decode()
    assert records() == before
    assert not Entry.objects.filter(tournament=tournament).exists()


def test_a_visitor_is_asked_to_log_in_and_cannot_register(client, make_tournament):
    tournament = make_tournament()
    before = records()

    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    answer = client.post(f"/tournaments/{tournament.pk}/register/")

    assert 'data-testid="login-to-register"' in page
    assert answer.status_code == 302 and answer["Location"].startswith("/login/")
    assert client.get(f"/tournaments/{tournament.pk}/register/").status_code == 405
    assert records() == before


def test_a_running_tournament_page_shows_the_level_and_your_table(
    client, make_tournament, funded, django_capture_on_commit_callbacks
):
    tournament = make_tournament(bounty=0, max_players=2, seats_per_table=2)
    players = [funded(), funded()]
    tournament_register(tournament_id=tournament.pk, player=players[0])
    with django_capture_on_commit_callbacks(execute=True):
        tournament_register(tournament_id=tournament.pk, player=players[1])

    page = _logged_in(client, players[0]).get(f"/tournaments/{tournament.pk}/").content.decode()

    assert 'data-status="running"' in page
    assert 'data-testid="level"' in page and 'data-testid="blinds">10/20<' in page
    assert 'data-testid="your-table"' in page and 'data-testid="register"' not in page


def test_a_tournament_tables_page_carries_the_tournament_bar_and_its_script(
    client, make_tournament, funded, django_capture_on_commit_callbacks
):
    tournament = make_tournament(bounty=0, max_players=2, seats_per_table=2)
    players = [funded(), funded()]
    tournament_register(tournament_id=tournament.pk, player=players[0])
    with django_capture_on_commit_callbacks(execute=True):
        tournament_register(tournament_id=tournament.pk, player=players[1])
    (table_id,) = Table.objects.filter(tournament_id=tournament.pk).values_list("pk", flat=True)

    page = _logged_in(client, players[0]).get(f"/tables/{table_id}/").content.decode()

    assert f'data-api="/api/v1/tournaments/{tournament.pk}/"' in page
    assert "poker/tournament-bar.js" in page
    assert 'data-testid="tournament-level">Blinds 10/20<' in page


def test_a_cash_tables_page_has_no_tournament_bar(client, table):
    page = client.get(f"/tables/{table().pk}/").content.decode()
    assert "tournament-bar" not in page
