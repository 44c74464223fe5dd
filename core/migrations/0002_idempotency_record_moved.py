"""The stored responses of idempotent REST requests move here from ``wallet`` (core owns
idempotency, ``core.idempotency``), with their table and constraint unchanged (state only);
the content type follows, so the permissions the roles hold stay the same rows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


SOURCE, TARGET, MODEL = "wallet", "core", "idempotencyrecord"


def content_type_move(apps, schema_editor, source=SOURCE, target=TARGET):
    """Renames the model's content type from ``source`` to ``target``. Where ``target``'s
    already exists (``post_migrate`` created it while this migration was unapplied), the
    grants of ``source``'s permissions pass to ``target``'s of the same codename and
    ``source``'s content type goes."""
    content_types = apps.get_model("contenttypes", "ContentType")
    permissions = apps.get_model("auth", "Permission")
    old = content_types.objects.filter(app_label=source, model=MODEL).first()
    if old is None:
        return
    new = content_types.objects.filter(app_label=target, model=MODEL).first()
    if new is None:
        old.app_label = target
        old.save(update_fields=["app_label"])
        return
    for permission in permissions.objects.filter(content_type=old):
        kept, _ = permissions.objects.get_or_create(
            content_type=new, codename=permission.codename, defaults={"name": permission.name}
        )
        kept.group_set.add(*permission.group_set.all())
        kept.user_set.add(*permission.user_set.all())
    old.delete()


def content_type_return(apps, schema_editor):
    content_type_move(apps, schema_editor, source=TARGET, target=SOURCE)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_username_key_unique"),
        ("wallet", "0008_withdrawal_four_eyes_cancel"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
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
