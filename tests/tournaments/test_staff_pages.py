"""The staff's tournament pages: the three shipped structure templates (held to the
structure's rules when edited), creating a tournament from one with amounts typed in the
currency's units, and cancelling with a reason, which refunds every entry."""

from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import ValidationError

from tests.support.tournaments import cash, records
from tournaments.models import StructureTemplate, Tournament
from tournaments.seed import ship_structure_templates
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db


def _form(template: StructureTemplate, **overrides: str) -> dict[str, str]:
    return {
        "key": str(uuid.uuid4()), "template": str(template.pk), "name": "Friday turbo",
        "variant": "NT", "currency": "EUR", "buy_in": "10", "fee": "1.50", "bounty": "",
        "guarantee": "", "starting_stack": "5000", "seats_per_table": "6",
        "min_players": "2", "max_players": "12", "start": "", "late_registration_levels": "0",
        "payouts": "65, 35", "action_seconds": "30", **overrides,
    }  # fmt: skip


def test_the_app_ships_turbo_regular_and_deep_templates_held_to_the_structure_rules():
    assert list(StructureTemplate.objects.values_list("name", flat=True)) == [
        "turbo",
        "regular",
        "deep",
    ]
    turbo = StructureTemplate.objects.get(name="turbo")
    turbo.levels = [{"small_blind": 20, "big_blind": 10, "minutes": 5}]  # the blinds fall
    with pytest.raises(ValidationError, match="invalid_levels"):
        turbo.full_clean()


def test_staff_create_a_tournament_from_a_template_with_amounts_in_euros(client, make_user):
    staff = make_user(role="admin")
    client.force_login(staff)
    turbo = StructureTemplate.objects.get(name="turbo")

    answer = client.post("/staff/tournaments/", _form(turbo))

    created = Tournament.objects.get(name="Friday turbo")
    assert answer.status_code == 302 and answer["Location"] == f"/staff/tournaments/{created.pk}/"
    assert (created.buy_in, created.fee, created.bounty) == (1_000, 150, 0)
    assert created.levels == turbo.levels and created.kind == Tournament.Kind.SIT_AND_GO
    assert created.payouts == ["65.00", "35.00"]
    page = client.get("/staff/tournaments/").content.decode()
    assert f'data-testid="staff-tournament-{created.pk}"' in page and "€10.00+€1.50" in page


def test_a_tournament_form_with_a_bad_amount_or_structure_is_refused_and_creates_nothing(
    client, make_user
):
    client.force_login(make_user(role="admin"))
    turbo = StructureTemplate.objects.get(name="turbo")
    before = records()

    bad_amount = client.post("/staff/tournaments/", _form(turbo, buy_in="ten"))
    # Numbers beyond what the database holds are the form's errors, not the database's.
    too_deep = client.post("/staff/tournaments/", _form(turbo, starting_stack=str(10**20)))
    too_many = client.post("/staff/tournaments/", _form(turbo, max_players=str(10**12)))
    bounty_too_big = client.post("/staff/tournaments/", _form(turbo, bounty="20"))

    assert bad_amount.status_code == 400 and 'data-testid="error-buy_in"' in (
        bad_amount.content.decode()
    )
    assert too_deep.status_code == 400 and 'data-testid="error-starting_stack"' in (
        too_deep.content.decode()
    )
    assert too_many.status_code == 400 and 'data-testid="error-max_players"' in (
        too_many.content.decode()
    )
    assert bounty_too_big.status_code == 400
    assert "tournament-form-error" in bounty_too_big.content.decode()
    assert not Tournament.objects.exists() and records() == before


def test_support_staff_read_the_tournaments_but_may_not_create_or_cancel(
    client, make_user, make_tournament
):
    tournament = make_tournament()
    client.force_login(make_user(role="support"))
    turbo = StructureTemplate.objects.get(name="turbo")

    listing = client.get("/staff/tournaments/")
    assert listing.status_code == 200 and 'data-testid="tournament-form"' not in (
        listing.content.decode()
    )
    assert client.post("/staff/tournaments/", _form(turbo)).status_code == 403
    page = client.get(f"/staff/tournaments/{tournament.pk}/").content.decode()
    assert 'data-testid="cancel-form"' not in page
    answer = client.post(f"/staff/tournaments/{tournament.pk}/", {"reason": "no"})
    assert answer.status_code == 403
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING


def test_players_are_not_let_into_the_staff_tournament_pages(client, make_user):
    client.force_login(make_user())
    assert client.get("/staff/tournaments/").status_code == 403


def test_staff_cancel_with_a_reason_and_every_entry_is_refunded(
    client, make_user, make_tournament, funded
):
    tournament = make_tournament()
    player = funded()
    before = cash(player)
    tournament_register(tournament_id=tournament.pk, player=player)
    client.force_login(make_user(role="admin"))

    blank = client.post(f"/staff/tournaments/{tournament.pk}/", {"reason": "  "})
    assert blank.status_code in (400, 422)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING

    answer = client.post(f"/staff/tournaments/{tournament.pk}/", {"reason": "Server move"})

    assert answer.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "Server move" and cash(player) == before


def test_the_shipped_templates_are_made_when_none_exists_and_a_deleted_one_stays_deleted():
    StructureTemplate.objects.all().delete()
    ship_structure_templates()
    assert StructureTemplate.objects.count() == 3

    StructureTemplate.objects.filter(name="deep").delete()
    ship_structure_templates()
    assert sorted(StructureTemplate.objects.values_list("name", flat=True)) == [
        "regular",
        "turbo",
    ]
