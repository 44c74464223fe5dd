from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _roles_complete(**kwargs: Any) -> None:
    """Keeps the role groups whole after every ``migrate`` (and after a test flush, which
    empties the tables the data migration filled): permissions that later migrations add
    reach their roles, and ``admin`` holds every permission."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Group, Permission

    from staff.roles import roles_sync

    # This receiver runs before auth's own (staff comes before django.contrib.auth in
    # INSTALLED_APPS), so the app's permissions are created here first: otherwise the last
    # app's would never reach a role. Creating them is idempotent.
    create_permissions(kwargs["app_config"], verbosity=0, using=kwargs.get("using", "default"))
    roles_sync(Group, Permission)


class StaffConfig(AppConfig):
    """Who the staff are and what they did: the roles and the staff log, low in the layers
    (every app whose services staff call checks a role and writes the log)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "staff"
    verbose_name = "Staff"

    def ready(self) -> None:
        # Connected for every app's post_migrate: each one may have just created permissions.
        post_migrate.connect(_roles_complete, dispatch_uid="staff_roles")
