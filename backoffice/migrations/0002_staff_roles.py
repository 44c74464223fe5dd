"""The staff groups (support, finance, risk, admin) with their permissions.

Permissions are created by ``post_migrate``, after every migration: on a fresh database
none exist yet here, so they are created first for every app (Django's own function).
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from staff.roles import ROLES, roles_sync


def roles_create(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    roles_sync(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def roles_delete(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0001_staff_log"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("wallet", "0007_withdrawal_restriction_staff_permissions"),
        ("fraud", "0002_analysis"),
        ("poker", "0006_fairness_seeds"),
        ("handhistory", "0005_export_jobs"),
        ("ledger", "0003_lean_transfer_constraints"),
    ]

    operations = [migrations.RunPython(roles_create, roles_delete)]
