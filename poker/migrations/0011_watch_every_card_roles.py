"""The live staff view's permission (``poker.watch_every_card``) to the ``risk`` and
``admin`` groups where they exist (``staff.roles`` names it for ``risk`` too, so a
database whose groups are created later gets it from the roles migration).

Permissions are created by ``post_migrate``, after every migration: the poker app's are
created here first (Django's own function), as the roles migration does.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

ROLES = ("risk", "admin")


def _permission(apps):
    config = apps.get_app_config("poker")
    config.models_module = True
    create_permissions(config, apps=apps, verbosity=0)
    config.models_module = None
    return apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="poker", codename="watch_every_card"
    )


def grant(apps, schema_editor):
    permission = _permission(apps)
    for group in apps.get_model("auth", "Group").objects.filter(name__in=ROLES):
        group.permissions.add(permission)


def revoke(apps, schema_editor):
    permission = _permission(apps)
    for group in apps.get_model("auth", "Group").objects.filter(name__in=ROLES):
        group.permissions.remove(permission)


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0010_full_view_watch"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
