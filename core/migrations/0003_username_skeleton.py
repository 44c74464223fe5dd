"""Each account's username skeleton (``core.usernames.username_skeleton``), unique: names
that look alike are one name from now on.

Existing accounts get their row in id order; an account that looks like one before it is
reported (printed, and logged as a warning) and left as it is, without a row: nobody is
renamed (names are on hands, logs and exports) and the migration does not fail. Every
later sign-up is held to the rule against all of them.
"""

from __future__ import annotations

import logging
from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

logger = logging.getLogger("core.migrations")


def _fill(apps: Any, schema_editor: Any) -> None:
    from core.usernames import username_skeleton

    alias = schema_editor.connection.alias
    users = apps.get_model("auth", "User").objects.using(alias).order_by("pk")
    skeletons = apps.get_model("core", "UsernameSkeleton").objects.using(alias)
    first: dict[str, Any] = {}
    rows = []
    for user in users.only("pk", "username"):
        skeleton = username_skeleton(user.username)
        if skeleton in first:
            line = (
                f"username look-alike (kept, not renamed): id {user.pk} {user.username!r} "
                f"looks like id {first[skeleton].pk} {first[skeleton].username!r}"
            )
            print(line)
            logger.warning(line)
            continue
        first[skeleton] = user
        rows.append(skeletons.model(user_id=user.pk, skeleton=skeleton))
    skeletons.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("core", "0002_idempotency_record_moved"),
    ]

    operations = [
        migrations.CreateModel(
            name="UsernameSkeleton",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("skeleton", models.TextField(unique=True)),
            ],
        ),
        migrations.RunPython(_fill, migrations.RunPython.noop, elidable=False),
    ]
