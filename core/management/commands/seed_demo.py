"""Idempotent demo data: an admin account (and whatever the apps add to the seed)."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

#: Other apps append callables here (called with the command) to extend the demo seed.
SEED_STEPS: list[Any] = []


class Command(BaseCommand):
    help = "Create the demo data (idempotent): an admin user with a printed password."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--admin-username", default="admin")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        username = options["admin_username"]
        admin = user_model.objects.filter(username=username).first()
        if admin is None:
            password = secrets.token_urlsafe(12)
            user_model.objects.create_superuser(username=username, password=password, email="")
            self.stdout.write(f"Admin user created: {username} / {password}")
        else:
            self.stdout.write(
                f"Admin user {username!r} exists (password unchanged; "
                f"reset with: python manage.py changepassword {username})"
            )
        for step in SEED_STEPS:
            step(self)
