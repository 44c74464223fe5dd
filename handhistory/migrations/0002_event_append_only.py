from django.db import migrations

from core.db import AppendOnly


class Migration(migrations.Migration):
    dependencies = [("handhistory", "0001_event_store")]

    operations = [AppendOnly("handhistory_event")]
