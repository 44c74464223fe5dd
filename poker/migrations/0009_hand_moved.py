"""The hand row now lives in ``handhistory`` (its 0007_hand): ``Table.current_hand``
points there and poker forgets its own model. State only: the table ``poker_hand`` and
every key to it stay as they are. After the fraud models' keys moved (fraud 0004), so no
state keeps a key to ``poker.hand``.

The content type follows the model (``poker.hand`` -> ``handhistory.hand``), so its
permissions (``view_hand`` is the staff "every card" permission) and every group and user
holding them carry over. Here, at the last step, because until now a run that creates
permissions (``backoffice`` 0002 on a new database, ``post_migrate`` after a partial run)
may have found the model in both apps: then the two are merged.
"""

import django.db.models.deletion
from django.db import migrations, models


def _content_type_move(apps, old_label, new_label):
    content_type = apps.get_model("contenttypes", "ContentType")
    permission = apps.get_model("auth", "Permission")
    old = content_type.objects.filter(app_label=old_label, model="hand").first()
    if old is None:  # a new database: post_migrate creates it under the model's app
        return
    new = content_type.objects.filter(app_label=new_label, model="hand").first()
    if new is None:
        old.app_label = new_label
        old.save(update_fields=["app_label"])
        return
    # Both exist (a run found the model in both apps): the old permissions' holders move over.
    for perm in permission.objects.filter(content_type=old):
        twin = permission.objects.filter(content_type=new, codename=perm.codename).first()
        if twin is None:
            perm.content_type = new
            perm.save(update_fields=["content_type"])
            continue
        twin.group_set.add(*perm.group_set.all())
        twin.user_set.add(*perm.user_set.all())
        perm.delete()
    old.delete()


def content_type_forward(apps, schema_editor):
    _content_type_move(apps, "poker", "handhistory")


def content_type_backward(apps, schema_editor):
    _content_type_move(apps, "handhistory", "poker")


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0008_remove_table_creation_key"),
        ("handhistory", "0007_hand"),
        ("fraud", "0004_hand_moved"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="table",
                    name="current_hand",
                    field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="handhistory.hand"),
                ),
                migrations.DeleteModel(name="Hand"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_forward, content_type_backward),
    ]
