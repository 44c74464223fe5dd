"""The staff log's model moves here from ``backoffice`` with its table, constraint, index and
append-only triggers unchanged (state only), and its content type follows it, so the
permissions the roles hold (``view_staffaction``...) stay the same rows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


SOURCE, TARGET, MODEL = "backoffice", "staff", "staffaction"


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
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("backoffice", "0002_staff_roles"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="StaffAction",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("action", models.CharField(max_length=48)),
                        ("target", models.CharField(max_length=96)),
                        ("reason", models.TextField(blank=True)),
                        ("data", models.JSONField(blank=True, default=dict)),
                        ("actor", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("subject", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "backoffice_staffaction",
                        "ordering": ["-at", "-id"],
                        "indexes": [models.Index(fields=["subject", "at"], name="backoffice_sa_subject_at")],
                        "constraints": [models.CheckConstraint(condition=models.Q(("action", ""), _negated=True), name="backoffice_staffaction_action")],
                    },
                ),
            ],
        ),
        migrations.RunPython(content_type_move, content_type_return),
    ]
