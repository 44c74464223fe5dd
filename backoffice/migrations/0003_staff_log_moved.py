"""The staff log's model now lives in the ``staff`` app (its migration 0001): removed from
this app's state only; the table stays where it is."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0002_staff_roles"),
        ("staff", "0001_staff_log_moved"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="StaffAction")]),
    ]
