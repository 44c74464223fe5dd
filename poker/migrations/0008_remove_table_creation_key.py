"""The creation keys live in ``TableCommand`` now (the previous migration moved them)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("poker", "0007_table_creation_as_command_records"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="table",
            name="creation_key",
        ),
    ]
