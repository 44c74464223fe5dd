"""The tournament REST API: exactly the issue's paths and names, Idempotency-Key on every
POST, typed errors that leave the ledger and the event store unchanged."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from ledger.models import AccountKind
from tests.support.tournaments import cash, records, tournament_balances
from tests.support.wallet import post
from tests.tournaments.conftest import LEVELS, structure
from tournaments.models import Tournament
from wallet.responsible import timeout_start

pytestmark = pytest.mark.django_db

URL = "/api/v1/tournaments/"

BODY = {**structure(payouts=[65, 35], action_seconds=20), "start": "when_full"}


@pytest.fixture
def staff_client(auth_client, director):
    return auth_client(director)


@pytest.fixture
def player_client(auth_client, funded):
    return auth_client(funded(5_000))


def _error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and set(body) == {"code", "message", "extra"}


def test_staff_create_a_sit_and_go_and_a_retry_with_the_same_key_returns_it(staff_client):
    response = post(staff_client, URL, BODY, key="create-1")
    again = post(staff_client, URL, BODY, key="create-1")

    assert response.status_code == 201, response.json()
    created = response.json()
    assert again.json() == created and again["Idempotent-Replayed"] == "true"
    assert Tournament.objects.count() == 1
    assert created["kind"] == "sit_and_go" and created["start"] == "when_full"
    assert created["status"] == "registering"
    assert created["levels"][0] == {**LEVELS[0], "big_blind_ante": False}
    assert created["payout_percentages"] == ["65.00", "35.00"]
    assert (created["entries"], created["players_left"], created["prize_pool"]) == (0, 0, 0)
    assert (created["level"], created["tables"], created["standings"]) == (None, [], [])
    assert created["you"] is None


def test_a_scheduled_tournament_starts_at_its_time(staff_client):
    start = (timezone.now() + timedelta(days=1)).replace(microsecond=0)

    response = post(staff_client, URL, {**BODY, "start": start.isoformat()})

    assert response.status_code == 201, response.json()
    assert response.json()["kind"] == "scheduled"
    assert Tournament.objects.get().starts_at == start


@pytest.mark.parametrize(
    "change",
    [
        {"levels": []},
        {"levels": [{"small_blind": 10, "big_blind": 20, "ante": 0}]},
        {"levels": [{"small_blind": 10, "big_blind": 20, "minutes": 5, "hands": 10}]},
        {"levels": [{"small_blind": 30, "big_blind": 20, "minutes": 5}]},
        {"start": "tomorrow"},
        {"buy_in": "1000"},
        {"payouts": [50, 50.005]},
        {"rake": 5},
    ],
)
def test_malformed_structures_are_refused_and_nothing_is_written(staff_client, change):
    before = records()

    _error(post(staff_client, URL, {**BODY, **change}), 400, "invalid")

    assert records() == before


def test_players_cannot_create_or_cancel_tournaments(player_client, make_tournament):
    tournament = make_tournament()
    before = records()

    _error(post(player_client, URL, BODY), 403, "permission_denied")
    _error(
        post(player_client, f"{URL}{tournament.pk}/cancel/", {"reason": "mine"}),
        403,
        "permission_denied",
    )

    assert records() == before


def test_the_lobby_filters_by_status_variant_and_currency(api_client, make_tournament, director):
    from tournaments.services import tournament_cancel

    nt_eur = make_tournament(name="A")
    po_eur = make_tournament(name="B", variant="PO")
    nt_usd = make_tournament(name="C", currency="USD")
    tournament_cancel(tournament_id=nt_usd.pk, staff_user=director, reason="test")

    def ids(query: str) -> list[int]:
        response = api_client.get(f"{URL}{query}")
        assert response.status_code == 200, response.json()
        return [row["id"] for row in response.json()["results"]]

    assert ids("") == [nt_usd.pk, po_eur.pk, nt_eur.pk]
    assert ids("?variant=NT") == [nt_usd.pk, nt_eur.pk]
    assert ids("?currency=EUR") == [po_eur.pk, nt_eur.pk]
    assert ids("?status=cancelled") == [nt_usd.pk]
    assert ids("?status=registering&variant=PO&currency=EUR") == [po_eur.pk]
    _error(api_client.get(f"{URL}?status=paused"), 400, "invalid")


def test_registering_over_the_api_pays_and_shows_you_in_the_standings(
    player_client, make_tournament
):
    tournament = make_tournament(payouts=["65", "35"], guarantee=1_000)
    url = f"{URL}{tournament.pk}/"

    response = post(player_client, f"{url}register/")

    assert response.status_code == 200, response.json()
    shown = response.json()
    assert (shown["entries"], shown["players_left"]) == (1, 1)
    assert shown["prize_pool"] == 1_000  # the guarantee, above the 800 paid in
    assert shown["payouts"] == {"1": 650, "2": 350}
    assert shown["standings"] == [
        {"username": player_client.user.username, "chips": 1_500, "place": None, "prize": None,
         "bounties_won": 0}
    ]  # fmt: skip
    assert shown["you"] == {"table": None, "seat": None, "chips": 1_500, "place": None,
                            "prize": None, "bounties_won": 0}  # fmt: skip
    assert cash(player_client.user) == 5_000 - 1_100
    assert player_client.get(url).json() == shown


def test_unregistering_over_the_api_refunds_everything(player_client, make_tournament):
    tournament = make_tournament()
    post(player_client, f"{URL}{tournament.pk}/register/")

    response = post(player_client, f"{URL}{tournament.pk}/unregister/")

    assert response.status_code == 200, response.json()
    assert response.json()["you"] is None and response.json()["entries"] == 0
    assert cash(player_client.user) == 5_000
    assert set(tournament_balances(tournament).values()) == {0}


def test_staff_cancel_with_a_reason_and_everyone_is_refunded(
    staff_client, auth_client, funded, make_tournament
):
    tournament = make_tournament()
    players = [auth_client(funded(2_000)) for _ in range(3)]
    for client in players:
        assert post(client, f"{URL}{tournament.pk}/register/").status_code == 200

    response = post(staff_client, f"{URL}{tournament.pk}/cancel/", {"reason": "No director"})

    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "cancelled"
    assert response.json()["cancel_reason"] == "No director"
    assert response.json()["prize_pool"] == 0
    assert [cash(c.user) for c in players] == [2_000] * 3
    assert tournament_balances(tournament) == {
        AccountKind.TOURNAMENT_POOL: 0,
        AccountKind.TOURNAMENT_BOUNTY: 0,
    }


@pytest.mark.parametrize(
    ("prepare", "path", "status", "code"),
    [
        ("registered", "register/", 409, "already_registered"),
        ("broke", "register/", 422, "insufficient_funds"),
        ("started", "register/", 422, "registration_closed"),
        ("time_out", "register/", 403, "account_restricted"),
        ("nothing", "unregister/", 422, "not_registered"),
        ("registered_started", "unregister/", 422, "tournament_started"),
    ],
)
def test_refused_commands_answer_a_typed_error_and_change_nothing(
    auth_client, funded, make_tournament, prepare, path, status, code
):
    tournament = make_tournament()
    player = funded(1_000 if prepare == "broke" else 5_000)
    client = auth_client(player)
    if prepare.startswith("registered"):
        post(client, f"{URL}{tournament.pk}/register/")
    if prepare.endswith("started"):
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    if prepare == "time_out":
        timeout_start(user=player, hours=24, restriction_id=uuid.uuid4())
    before = records()

    _error(post(client, f"{URL}{tournament.pk}/{path}"), status, code)

    assert records() == before


@pytest.mark.parametrize("path", ["", "register/", "unregister/", "cancel/"])
def test_an_unknown_tournament_is_a_typed_404(staff_client, path):
    before = records()
    if path:
        response = post(
            staff_client, f"{URL}987654/{path}", {"reason": "x"} if path == "cancel/" else {}
        )
    else:
        response = staff_client.get(f"{URL}987654/")

    _error(response, 404, "tournament_not_found")
    _error(staff_client.get(f"{URL}9223372036854775808/{path}"), 404, "not_found")
    assert records() == before


def test_every_post_needs_an_idempotency_key(player_client, staff_client, make_tournament):
    tournament = make_tournament()
    before = records()

    for client, url, body in (
        (staff_client, URL, BODY),
        (player_client, f"{URL}{tournament.pk}/register/", {}),
        (player_client, f"{URL}{tournament.pk}/unregister/", {}),
        (staff_client, f"{URL}{tournament.pk}/cancel/", {"reason": "x"}),
    ):
        _error(post(client, url, body, key=None), 400, "idempotency_key_required")

    assert records() == before
