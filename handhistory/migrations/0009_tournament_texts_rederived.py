"""The exports name a tournament hand's tournament (the PokerStars tournament header, PHH's
``event`` and ``level``, OHH's ``tournament_info``) where they wrote it as a cash hand: the
stored texts of the hands dealt at tournament tables are deleted so that exports derive
them again, with their tournament, on the spot (docs/handhistory.md, "Stored export
texts": a change to a formatter needs its rows deleted). Cash hands' texts are the same
bytes as before and stay.
"""

from django.db import migrations


def forget_tournament_texts(apps, schema_editor):
    texts = apps.get_model("handhistory", "HandText").objects
    texts.filter(hand__table__tournament_id__isnull=False).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("handhistory", "0008_pokerstars_texts_rederived"),
        ("poker", "0013_tournament_tables"),
    ]

    operations = [migrations.RunPython(forget_tournament_texts, migrations.RunPython.noop)]
