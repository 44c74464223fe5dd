"""A confirmed case's freeze, through the wallet and the table services."""

from __future__ import annotations

import pytest

from fraud.services import case_confirm
from ledger.models import Transfer
from poker.commands.seating import (
    table_create,
    table_sit,
    table_sit_in,
    table_sit_out,
    table_top_up,
)
from poker.models import Seat
from tests.support.poker import actor_for, fund, key
from wallet.errors import AccountRestricted

pytestmark = pytest.mark.django_db


def _table():
    return table_create(name="F", variant="NT", small_blind=50, big_blind=100,
                        min_buy_in=2_000, max_buy_in=20_000, max_seats=6)  # fmt: skip


def test_a_freeze_takes_the_players_off_their_tables_and_refuses_their_buy_ins(
    open_case, reviewer, make_user
):
    case = open_case()
    a, b = case.players.order_by("pk")
    other = make_user()
    for user in (a, b, other):
        fund(user, 100_000)
    busy, quiet = _table(), _table()
    for user in (a, b, other):
        table_sit(
            table_id=busy.pk, player_id=user.pk, buy_in=5_000, key=key(), actor=actor_for(user)
        )
    table_sit(table_id=quiet.pk, player_id=a.pk, buy_in=5_000, key=key(), actor=actor_for(a))

    case_confirm(case_id=case.pk, reason="dumping", freeze=True, by=reviewer())

    # Not in a hand at the quiet table: gone at once, chips back in the (frozen) wallet.
    assert not Seat.objects.filter(table=quiet, player=a).exists()
    # In the running hand at the busy table: leaving, cashed out when it ends.
    states = dict(Seat.objects.filter(table=busy).values_list("player_id", "state"))
    assert states[other.pk] == "active"
    assert {states.get(a.pk, "gone"), states.get(b.pk, "gone")} <= {"leaving", "gone"}
    transfers = Transfer.objects.count()
    for user in (a, b):
        with pytest.raises(AccountRestricted) as refused:
            table_sit(table_id=quiet.pk, player_id=user.pk, buy_in=5_000, key=key(),
                      actor=actor_for(user))  # fmt: skip
        assert refused.value.code == "account_restricted"
        assert "fraud" not in refused.value.message.lower()  # players never learn of the case
    assert Transfer.objects.count() == transfers
    assert not Seat.objects.filter(table=quiet, player__in=[a, b]).exists()


def test_a_frozen_player_sitting_out_can_neither_top_up_nor_sit_in(open_case, reviewer):
    case = open_case()
    a, _b = case.players.order_by("pk")
    fund(a, 100_000)
    t = _table()
    table_sit(table_id=t.pk, player_id=a.pk, buy_in=5_000, key=key(), actor=actor_for(a))
    table_sit_out(table_id=t.pk, player_id=a.pk, key=key(), actor=actor_for(a))
    # The freeze without the table service's help (as if the unseating failed).
    from wallet.restrictions import restriction_impose

    restriction_impose(user_id=a.pk, kind="fraud_freeze", source="test", reason="held", by=None)
    transfers = Transfer.objects.count()
    with pytest.raises(AccountRestricted):
        table_top_up(table_id=t.pk, player_id=a.pk, amount=1_000, key=key(), actor=actor_for(a))
    with pytest.raises(AccountRestricted):
        table_sit_in(table_id=t.pk, player_id=a.pk, key=key(), actor=actor_for(a))
    assert Transfer.objects.count() == transfers
    assert Seat.objects.get(table=t, player=a).state == "sitting_out"
