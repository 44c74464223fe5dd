"""The table commands' keys: the one key rule (``core.idempotency.check_key``) and the one
store of exactly-once outcomes (``TableCommand``), table creation included."""

from __future__ import annotations

import pytest

from core.idempotency import IdempotencyKeyRequired
from poker.models import TableCommand

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_key_is_refused_by_a_table_command_before_it_writes(table, player, blank):
    from handhistory.models import Event
    from poker.commands.seating import table_sit
    from tests.support.poker import actor_for

    t, a = table(), player()
    with pytest.raises(IdempotencyKeyRequired):
        table_sit(table_id=t.pk, player_id=a.pk, buy_in=5_000, key=blank, actor=actor_for(a))
    assert not TableCommand.objects.exists() and not Event.objects.exists()


SETTINGS = dict(name="C", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
                max_buy_in=20_000, max_seats=6)  # fmt: skip


def test_creating_a_table_is_a_recorded_command_whose_outcome_names_the_table(make_user):
    from poker.commands.seating import table_create
    from poker.models import Table

    staff = make_user(role="admin")
    first = table_create(**SETTINGS, key="create-1", player_id=staff.pk)
    again = table_create(**SETTINGS, key="create-1", player_id=staff.pk)
    assert first.pk == again.pk and Table.objects.count() == 1
    record = TableCommand.objects.get(player_id=staff.pk, key="create-1")
    assert (record.command, record.table_id, record.result) == (
        "create",
        first.pk,
        {"table": first.pk},
    )


def test_a_creation_key_and_a_command_key_are_one_namespace(make_user, player):
    from core.idempotency import IdempotencyKeyReused as KeyReused
    from poker.commands.seating import table_create, table_sit
    from poker.models import Seat
    from tests.support.poker import actor_for

    staff = player(role="admin")
    table = table_create(**SETTINGS, key="mine", player_id=staff.pk)
    with pytest.raises(KeyReused) as err:
        table_sit(table_id=table.pk, player_id=staff.pk, buy_in=5_000, key="mine",
                  actor=actor_for(staff))  # fmt: skip
    assert err.value.code == KeyReused.default_code
    assert not Seat.objects.exists()
    other = table_create(**{**SETTINGS, "name": "D"}, key="other", player_id=staff.pk)
    table_sit(
        table_id=other.pk, player_id=staff.pk, buy_in=5_000, key="sat", actor=actor_for(staff)
    )
    with pytest.raises(KeyReused):
        table_create(**SETTINGS, key="sat", player_id=staff.pk)
    assert TableCommand.objects.filter(player_id=staff.pk).count() == 3


def test_a_system_creation_key_gives_one_table(make_user):
    from core.idempotency import IdempotencyKeyReused as KeyReused
    from poker.commands.seating import table_create
    from poker.models import Table

    first = table_create(**SETTINGS, key="deploy: main table")
    assert table_create(**SETTINGS, key="deploy: main table").pk == first.pk
    with pytest.raises(KeyReused):
        table_create(**{**SETTINGS, "big_blind": 200}, key="deploy: main table")
    assert Table.objects.count() == 1
    assert TableCommand.objects.get(player=None, key="deploy: main table").table_id == first.pk


# Threads race on connections of their own.
@pytest.mark.django_db(transaction=True)
@pytest.mark.xdist_group("tables")
def test_one_creation_key_racing_itself_gives_one_table(make_user):
    from poker.commands.seating import table_create
    from poker.models import Table
    from tests.support.threads import concurrently

    staff = make_user(role="admin")
    for key, player_id in (("race", staff.pk), ("system race", None)):
        tables = concurrently(
            *[lambda k=key, p=player_id: table_create(**SETTINGS, key=k, player_id=p)] * 4
        )
        assert not [t for t in tables if isinstance(t, Exception)], tables
        assert len({t.pk for t in tables}) == 1
    assert Table.objects.count() == 2 and TableCommand.objects.count() == 2


@pytest.mark.parametrize("bad", ["", "   ", "k" * 129, 7])
def test_a_bad_creation_key_creates_nothing(make_user, bad):
    from core.errors import InvalidRequest
    from poker.commands.seating import table_create
    from poker.models import Table

    with pytest.raises(InvalidRequest):
        table_create(**SETTINGS, key=bad, player_id=make_user(role="admin").pk)
    assert not Table.objects.exists() and not TableCommand.objects.exists()


# Runs the migration, which needs no transaction around it.
@pytest.mark.django_db(transaction=True)
@pytest.mark.xdist_group("tables")
def test_stored_creation_keys_move_into_command_records_on_postgresql():
    from tests.support.command_keys import creation_keys_survive_the_migration

    creation_keys_survive_the_migration()


@pytest.mark.slow
def test_stored_creation_keys_move_into_command_records_on_sqlite(tmp_path):
    from tests.support.sqlite import shell_on_sqlite

    script = (
        "from tests.support.command_keys import creation_keys_survive_the_migration as check\n"
        "check()\nprint('ok')"
    )
    run = shell_on_sqlite(tmp_path, script)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr
