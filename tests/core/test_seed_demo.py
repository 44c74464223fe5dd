import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from ledger.models import Account
from poker.models import Table

pytestmark = pytest.mark.django_db


def test_seed_demo_creates_admin_players_and_a_table_of_each_variant_once(capsys):
    call_command("seed_demo")
    first = capsys.readouterr().out
    assert "Admin user created: admin / " in first
    assert "Demo player created: alice / " in first
    assert sorted(Table.objects.values_list("variant", flat=True)) == ["FT", "NS", "NT", "PO"]
    alice = get_user_model().objects.get(username="alice")
    chips = Account.objects.get(kind="player_cash", owner_ref=f"user:{alice.pk}", currency="CHIPS")
    assert chips.balance > 0
    call_command("seed_demo")
    again = capsys.readouterr().out
    assert "created" not in again
    assert Table.objects.count() == 4
