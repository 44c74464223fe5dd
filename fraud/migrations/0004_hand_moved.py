"""The fraud models' keys follow the hand row to ``handhistory`` (its 0007_hand): state
only, the database's keys already point at the same table, ``poker_hand``."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("fraud", "0003_stored_facts"),
        ("handhistory", "0007_hand"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="ingestedhand",
                    name="hand",
                    field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name="+", serialize=False, to="handhistory.hand"),
                ),
                migrations.AlterField(
                    model_name="pairevidence",
                    name="hand",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="handhistory.hand"),
                ),
                migrations.AlterField(
                    model_name="storedfacts",
                    name="hand",
                    field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name="+", serialize=False, to="handhistory.hand"),
                ),
            ],
            database_operations=[],
        ),
    ]
