"""The hand row moves from ``poker`` to ``handhistory`` (the header of a hand's event
stream; docs/architecture.md, "Layers and import directions").

State only: the table stays ``poker_hand`` with the same columns, constraint, indexes and
foreign keys, so nothing in the database changes and no row is copied. Here the model
appears in ``handhistory`` and this app's keys to it follow; ``fraud`` 0004 moves the fraud
models' keys, and ``poker`` 0009 points ``Table.current_hand`` at it and forgets its own.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("handhistory", "0006_derived_texts"),
        ("poker", "0006_fairness_seeds"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Hand",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("number", models.PositiveIntegerField()),
                        ("seat_numbers", models.JSONField()),
                        ("player_ids", models.JSONField()),
                        ("started_at", models.DateTimeField(auto_now_add=True)),
                        ("ended_at", models.DateTimeField(blank=True, null=True)),
                        ("actor_index", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("turn_started_at", models.DateTimeField(blank=True, null=True)),
                        ("deadline", models.DateTimeField(blank=True, db_index=True, null=True)),
                        ("table", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="hands", to="poker.table")),
                    ],
                    options={
                        "db_table": "poker_hand",
                        "constraints": [
                            models.UniqueConstraint(fields=("table", "number"), name="hand_number_unique"),
                        ],
                    },
                ),
                migrations.AlterField(
                    model_name="handsummary",
                    name="hand",
                    field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name="summary", serialize=False, to="handhistory.hand"),
                ),
                migrations.AlterField(
                    model_name="handtext",
                    name="hand",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="texts", to="handhistory.hand"),
                ),
                migrations.AlterField(
                    model_name="playerhandresult",
                    name="hand",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="results", to="handhistory.hand"),
                ),
            ],
            database_operations=[],
        ),
    ]
