"""Bad input to the tournament services: a typed error, and neither the ledger nor the
event store changed."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import Forbidden, InvalidRequest
from ledger.errors import InsufficientFunds
from tests.support.tournaments import records
from tests.tournaments.conftest import structure
from tournaments.errors import (
    AlreadyRegistered,
    NotRegistered,
    RegistrationClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentStarted,
)
from tournaments.models import Tournament
from tournaments.services import (
    tournament_cancel,
    tournament_create,
    tournament_register,
    tournament_unregister,
)
from wallet.errors import AccountRestricted
from wallet.responsible import self_exclusion_start, timeout_start

pytestmark = pytest.mark.django_db


def _refused(error: type[Exception], call, code: str | None = None) -> None:
    before = records()
    with pytest.raises(error) as raised:
        call()
    if code is not None:
        assert raised.value.code == code
    assert records() == before


def _started(tournament: Tournament) -> None:
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)


def test_registering_twice_is_refused(make_tournament, funded):
    tournament, player = make_tournament(), funded()
    tournament_register(tournament_id=tournament.pk, player=player)

    _refused(
        AlreadyRegistered, lambda: tournament_register(tournament_id=tournament.pk, player=player)
    )


def test_registering_without_the_money_is_refused_saying_the_price(make_tournament, funded):
    tournament, player = make_tournament(name="Turbo"), funded(1_099)

    _refused(
        InsufficientFunds, lambda: tournament_register(tournament_id=tournament.pk, player=player)
    )
    with pytest.raises(InsufficientFunds) as refused:
        tournament_register(tournament_id=tournament.pk, player=player)
    assert refused.value.message == (
        "Registering to Turbo costs €11.00 (€10.00 buy-in + €1.00 fee); your wallet holds €10.99."
    )
    assert refused.value.extra == {"currency": "EUR", "available": 1_099, "required": 1_100}


def test_registering_after_the_start_is_refused(make_tournament, funded):
    tournament, player = make_tournament(), funded()
    _started(tournament)

    _refused(
        RegistrationClosed,
        lambda: tournament_register(tournament_id=tournament.pk, player=player),
    )


def test_registering_once_the_scheduled_start_is_due_without_late_registration_is_refused(
    make_tournament, funded
):
    tournament, player = make_tournament(start=timezone.now() + timedelta(hours=1)), funded()
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=timezone.now() - timedelta(seconds=1)
    )

    _refused(
        RegistrationClosed,
        lambda: tournament_register(tournament_id=tournament.pk, player=player),
    )


def test_registering_to_a_cancelled_tournament_is_refused(make_tournament, funded, director):
    tournament, player = make_tournament(), funded()
    tournament_cancel(tournament_id=tournament.pk, staff_user=director, reason="no interest")

    _refused(
        RegistrationClosed,
        lambda: tournament_register(tournament_id=tournament.pk, player=player),
    )


def test_registering_to_a_full_tournament_is_refused(make_tournament, funded):
    tournament = make_tournament(min_players=2, max_players=2, seats_per_table=2)
    for _ in range(2):
        tournament_register(tournament_id=tournament.pk, player=funded())
    player = funded()

    _refused(
        TournamentFull, lambda: tournament_register(tournament_id=tournament.pk, player=player)
    )


def test_a_player_on_a_time_out_cannot_register(make_tournament, funded):
    tournament, player = make_tournament(), funded()
    timeout_start(user=player, hours=24, restriction_id=uuid.uuid4())

    _refused(
        AccountRestricted, lambda: tournament_register(tournament_id=tournament.pk, player=player)
    )


def test_a_self_excluded_player_cannot_register(make_tournament, funded):
    tournament, player = make_tournament(), funded()
    self_exclusion_start(user=player, months=6, restriction_id=uuid.uuid4())

    _refused(
        AccountRestricted, lambda: tournament_register(tournament_id=tournament.pk, player=player)
    )


def test_unregistering_after_the_start_is_refused(make_tournament, funded):
    tournament, player = make_tournament(), funded()
    tournament_register(tournament_id=tournament.pk, player=player)
    _started(tournament)

    _refused(
        TournamentStarted, lambda: tournament_unregister(tournament_id=tournament.pk, player=player)
    )


def test_unregistering_without_being_registered_is_refused(make_tournament, funded):
    tournament, player = make_tournament(), funded()

    _refused(
        NotRegistered,
        lambda: tournament_unregister(tournament_id=tournament.pk, player=player),
    )


def test_an_unknown_tournament_is_not_found(funded, director):
    player = funded()
    _refused(TournamentNotFound, lambda: tournament_register(tournament_id=999_999, player=player))
    _refused(
        TournamentNotFound, lambda: tournament_unregister(tournament_id=999_999, player=player)
    )
    _refused(
        TournamentNotFound,
        lambda: tournament_cancel(tournament_id=999_999, staff_user=director, reason="x"),
    )


def test_only_staff_with_the_permission_create_a_tournament(make_user):
    for user in (make_user(), make_user(role="support")):
        _refused(
            Forbidden,
            lambda user=user: tournament_create(staff_user=user, key=uuid.uuid4(), **structure()),
            "permission_denied",
        )


def test_only_staff_with_the_permission_cancel_a_tournament(make_tournament, make_user):
    tournament = make_tournament()

    _refused(
        Forbidden,
        lambda: tournament_cancel(
            tournament_id=tournament.pk, staff_user=make_user(role="finance"), reason="x"
        ),
        "permission_denied",
    )


def test_a_cancellation_needs_a_reason(make_tournament, director):
    tournament = make_tournament()

    _refused(
        InvalidRequest,
        lambda: tournament_cancel(tournament_id=tournament.pk, staff_user=director, reason=" "),
        "reason_required",
    )


def test_a_cancellation_with_full_refunds_is_refused_after_the_start(
    make_tournament, funded, director
):
    tournament = make_tournament()
    tournament_register(tournament_id=tournament.pk, player=funded())
    _started(tournament)

    _refused(
        TournamentStarted,
        lambda: tournament_cancel(tournament_id=tournament.pk, staff_user=director, reason="x"),
    )


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"bounty": 1_001}, "bounty_above_buy_in"),
        ({"min_players": 5, "max_players": 4}, "invalid_player_bounds"),
        ({"seats_per_table": 9, "max_players": 6}, "invalid_player_bounds"),
        ({"late_registration_levels": 4}, "level_out_of_range"),
        (
            {"rebuy": {"until_level": 9, "price": 1_000, "chips": 1_500, "max": 2}},
            "level_out_of_range",
        ),
        ({"add_on": {"at_level": 4, "price": 1_000, "chips": 3_000}}, "level_out_of_range"),
        ({"breaks": [{"after_level": 5, "minutes": 5}]}, "level_out_of_range"),
        ({"currency": "XYZ"}, "unknown_currency"),
        ({"start": timezone.now() - timedelta(minutes=1)}, "start_in_past"),
    ],
)
def test_a_structure_that_does_not_fit_together_is_refused(director, overrides, code):
    _refused(
        InvalidRequest,
        lambda: tournament_create(staff_user=director, key=uuid.uuid4(), **structure(**overrides)),
        code,
    )


def test_creating_again_with_the_same_key_returns_the_first_tournament(director):
    key = uuid.uuid4()
    first = tournament_create(staff_user=director, key=key, **structure())
    before = records()

    again = tournament_create(staff_user=director, key=key, **structure())

    assert again.pk == first.pk
    assert records() == before


def test_payout_percentages_must_add_up_to_a_hundred(director):
    _refused(
        InvalidRequest,
        lambda: tournament_create(
            staff_user=director, key=uuid.uuid4(), **structure(payouts=["50", "30", "19.99"])
        ),
        "invalid_payouts",
    )
