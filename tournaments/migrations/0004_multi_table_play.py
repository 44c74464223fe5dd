from django.db import migrations, models


def running_and_played_are_seated(apps, schema_editor):
    """Before this field the sweeper stopped seating a running tournament once a hand
    had finished: those are seated."""
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(status="running", hands_played__gt=0).update(seated=True)


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0003_structure_templates'),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='broken',
            field=models.JSONField(default=list),
        ),
        migrations.AddField(
            model_name='tournament',
            name='hand_for_hand',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='tournament',
            name='moves',
            field=models.JSONField(default=list),
        ),
        migrations.AddField(
            model_name='tournament',
            name='moves_planned',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='tournament',
            name='seated',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='tournament',
            name='waiting',
            field=models.JSONField(default=list),
        ),
        migrations.RunPython(running_and_played_are_seated, migrations.RunPython.noop),
    ]
