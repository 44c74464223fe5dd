"""Demo seed step: players with play money and a sandbox EUR deposit (idempotent)."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from core.services import user_register
from wallet.services import deposit_create, derived_id, signup_grant

DEMO_PLAYERS = ("alice", "bob", "carol", "dave")
DEMO_EUR = 100_00


def seed_demo_players(command: Any) -> None:
    """Creates the demo players once; prints their credentials when created."""
    from django.db import transaction

    user_model = get_user_model()
    for name in DEMO_PLAYERS:
        user = user_model.objects.filter(username=name).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            user = user_register(username=name, password=password)
            command.stdout.write(f"Demo player created: {name} / {password}")
        else:
            with transaction.atomic():
                signup_grant(user)  # idempotent: already granted -> replay
            command.stdout.write(f"Demo player {name!r} exists (password unchanged)")
        if "sandbox" not in settings.WALLET_GATEWAYS:
            # Production without the sandbox opt-in: no money out of nothing.
            command.stdout.write(f"No sandbox gateway: no demo EUR deposit for {name!r}")
            continue
        deposit_create(
            user=user,
            deposit_id=derived_id("seed-deposit", name),
            amount=DEMO_EUR,
            currency="EUR",
            gateway="sandbox",
        )
