"""The table commands' keys: the one key rule (``core.idempotency.check_key``) and the one
store of exactly-once outcomes (``TableCommand``), table creation included."""

from __future__ import annotations

import pytest

from core.idempotency import IdempotencyKeyRequired
from poker.models import TableCommand

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_key_is_refused_by_a_table_command_before_it_writes(table, player, blank):
    from handhistory.models import Event
    from poker.commands.seating import table_sit
    from tests.support.poker import actor_for

    t, a = table(), player()
    with pytest.raises(IdempotencyKeyRequired):
        table_sit(table_id=t.pk, player_id=a.pk, buy_in=5_000, key=blank, actor=actor_for(a))
    assert not TableCommand.objects.exists() and not Event.objects.exists()
