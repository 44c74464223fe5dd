"""The stored responses of idempotent REST requests move here from ``wallet`` (core owns
idempotency, ``core.idempotency``), with their table and constraint unchanged (state only);
the content type follows, so the permissions the roles hold stay the same rows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def content_type_move(apps, schema_editor, source="wallet", target="core"):
    content_types = apps.get_model("contenttypes", "ContentType")
    content_types.objects.filter(app_label=source, model="idempotencyrecord").update(app_label=target)


def content_type_return(apps, schema_editor):
    content_type_move(apps, schema_editor, source="core", target="wallet")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_username_key_unique"),
        ("wallet", "0008_withdrawal_four_eyes_cancel"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("endpoint", models.CharField(max_length=255)),
                        ("key", models.CharField(max_length=255)),
                        ("request_hash", models.CharField(max_length=64)),
                        ("status_code", models.PositiveSmallIntegerField()),
                        ("response_body", models.JSONField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "wallet_idempotencyrecord",
                        "constraints": [models.UniqueConstraint(fields=("user", "endpoint", "key"), name="wallet_idempotency_once")],
                    },
                ),
            ],
        ),
        migrations.RunPython(content_type_move, content_type_return),
    ]
