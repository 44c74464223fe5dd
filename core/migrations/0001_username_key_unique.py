"""Usernames unique by key (lower case of the NFKC-normalised name, core.usernames): a
unique index on ``lower(username)``.

Accounts that already clash are reported (printed, and logged as a warning) and left as
they are: nobody is renamed (names are on hands, logs and exports) and the migration does
not fail. Their rows are kept out of the index by id (a partial index), so they stay
distinct accounts while every other name, and every later one, is held to the rule; a new
sign-up under one of their keys is refused by the registration's own check. Rename or
merge them by hand, then rerun this migration (zero and back) to drop the exception.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import migrations
from django.db.models import Count
from django.db.models.functions import Lower

INDEX = "core_username_key_uniq"
logger = logging.getLogger("core.migrations")


def _create_index(apps: Any, schema_editor: Any) -> None:
    user_model = apps.get_model("auth", "User")
    keyed = user_model.objects.using(schema_editor.connection.alias).annotate(
        key=Lower("username")
    )
    keys = keyed.values("key").annotate(n=Count("id")).filter(n__gt=1).values_list("key", flat=True)
    clashing = keyed.filter(key__in=list(keys)).order_by("key", "id")
    exempt = []
    for user in clashing:
        exempt.append(user.pk)
        line = f"username clash (kept, not renamed): id {user.pk} {user.username!r}, key {user.key!r}"
        print(line)
        logger.warning(line)
    quote = schema_editor.quote_name
    where = f" WHERE id NOT IN ({', '.join(str(int(pk)) for pk in exempt)})" if exempt else ""
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {quote(INDEX)} ON {quote(user_model._meta.db_table)} "
        f"(lower(username)){where}"
    )


def _drop_index(apps: Any, schema_editor: Any) -> None:
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(_create_index, _drop_index, elidable=False)]
