"""What the app ships: the blind structure templates (turbo, regular, deep), made after
every migration while there are none; and the demo seed step, a play-money sit-and-go
open for registration (one is created whenever none is open, so the demo always has one
to join)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.apps import apps as global_apps
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS

from tournaments.models import Tournament
from tournaments.rules.structure import DATA, TEMPLATES
from tournaments.services import tournament_create

DESCRIPTIONS = {
    "turbo": "Five-minute levels: a tournament of about an hour and a half.",
    "regular": "The room's standard structure.",
    "deep": "Long levels and deep play, for a long tournament.",
}


def ship_structure_templates(
    *, apps: Any = global_apps, using: str = DEFAULT_DB_ALIAS, **kwargs: Any
) -> None:
    """``post_migrate``: the shipped templates, when no template exists (staff may edit or
    delete them after; a flush of the database brings them back). Nothing on a database
    migrated to before the templates."""
    try:
        template = apps.get_model("tournaments", "StructureTemplate")
    except LookupError:
        return
    if template.objects.using(using).exists():
        return
    for name in TEMPLATES:
        data = json.loads((DATA / f"{name}.json").read_text())
        template.objects.using(using).create(
            name=name,
            description=DESCRIPTIONS[name],
            levels=data["levels"],
            breaks=data.get("breaks", []),
        )


DEMO_SIT_AND_GO: dict[str, Any] = {
    "name": "Demo sit & go (4 players)",
    "variant": "NT",
    "currency": "CHIPS",
    "buy_in": 1_000,
    "fee": 100,
    "bounty": 0,
    "starting_stack": 1_500,
    "seats_per_table": 4,
    "min_players": 2,
    "max_players": 4,
    "start": None,
    "levels": [
        {"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 3},
        {"small_blind": 20, "big_blind": 40, "ante": 0, "minutes": 3},
        {"small_blind": 30, "big_blind": 60, "ante": 5, "minutes": 3},
        {"small_blind": 50, "big_blind": 100, "ante": 10, "minutes": 3},
        {"small_blind": 100, "big_blind": 200, "ante": 25, "minutes": 3},
    ],
    "breaks": [],
    "late_registration_levels": 0,
    "rebuy": None,
    "add_on": None,
    "guarantee": 0,
    "payouts": ["65", "35"],
    "action_seconds": 20,
}


def seed_demo_tournaments(command: Any) -> None:
    """Creates the demo sit-and-go unless one is open for registration."""
    name = DEMO_SIT_AND_GO["name"]
    if Tournament.objects.filter(name=name, status=Tournament.Status.REGISTERING).exists():
        command.stdout.write(f"Demo tournament {name!r} is open")
        return
    # The seed's first step made sure an admin exists: the demo's tournament director.
    director = get_user_model().objects.filter(is_superuser=True).earliest("pk")
    tournament = tournament_create(staff_user=director, key=uuid.uuid4(), **DEMO_SIT_AND_GO)
    command.stdout.write(f"Demo tournament created: {tournament.name} (#{tournament.pk})")
