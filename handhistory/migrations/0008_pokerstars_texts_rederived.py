"""The PokerStars export names shown hands in PokerStars' words ("two pair, Kings and
Fives") instead of the engine's category ("two_pair"): the stored PokerStars texts of
earlier hands are deleted so that exports derive them again, in the new words, on the spot
(docs/handhistory.md, "Stored export texts": a change to a formatter needs its rows
deleted). Nothing else is touched; the other formats' texts stay.
"""

from django.db import migrations


def forget_pokerstars_texts(apps, schema_editor):
    apps.get_model("handhistory", "HandText").objects.filter(format="pokerstars").delete()


class Migration(migrations.Migration):
    dependencies = [("handhistory", "0007_hand")]

    operations = [migrations.RunPython(forget_pokerstars_texts, migrations.RunPython.noop)]
