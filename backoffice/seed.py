"""Demo staff for ``seed_demo``: one member per role, to try least privilege."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from staff.roles import ROLES

#: The demo staff member of each role is named after it, with this suffix.
SUFFIX = "-staff"


def seed_demo_staff(command: Any) -> None:
    """Creates ``support-staff``, ``finance-staff``, ``risk-staff`` and ``admin-staff`` once
    (staff, in their role's group); prints their passwords when created."""
    user_model = get_user_model()
    for role in ROLES:
        name = f"{role}{SUFFIX}"
        user = user_model.objects.filter(username=name).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            user = user_model.objects.create_user(username=name, password=password, is_staff=True)
            command.stdout.write(f"Demo staff created: {name} (role {role}) / {password}")
        else:
            command.stdout.write(f"Demo staff {name!r} exists (password unchanged)")
        user.groups.add(Group.objects.get(name=role))
