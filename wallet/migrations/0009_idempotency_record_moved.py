"""The idempotency records now live in ``core`` (its migration 0002): removed from this
app's state only; the table stays where it is."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0008_withdrawal_four_eyes_cancel"),
        ("core", "0002_idempotency_record_moved"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="IdempotencyRecord")]),
    ]
