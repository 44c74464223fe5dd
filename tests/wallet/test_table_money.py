"""Buy-in, cash-out and hand settlement: inside the table layer's own transaction."""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction

from core.errors import InvalidRequest
from ledger.audit import ledger_audit
from ledger.errors import InsufficientFunds, TransferConflict
from ledger.models import AccountKind
from ledger.posting import TransactionRequired
from wallet.services import (
    hand_settle,
    house_account,
    player_account,
    seat_account,
    seat_buy_in,
    seat_cash_out,
)
from wallet.tables import HOUSE, SettlementLeg


@pytest.fixture
def players(make_user):
    from wallet.services import signup_grant

    users = [make_user() for _ in range(3)]
    with transaction.atomic():
        for user in users:
            signup_grant(user)  # 100,000 CHIPS each
    return users


def _buy_in(user, seat, amount):
    return seat_buy_in(
        user_id=user.pk, seat_ref=seat, amount=amount, currency="CHIPS", transfer_id=uuid.uuid4()
    )


def _stake(seat):
    return seat_account(seat_ref=seat, currency="CHIPS").balance


def test_buy_in_settle_and_cash_out_inside_the_table_transaction(players):
    a, _, c = players
    with transaction.atomic():
        for user, seat in zip(players, ["t1:s1", "t1:s2", "t1:s3"], strict=True):
            _buy_in(user, seat, 10_000)
    assert player_account(user_id=a.pk, currency="CHIPS").balance == 90_000
    with transaction.atomic():
        posting = hand_settle(
            hand_ref="hand:1",
            currency="CHIPS",
            legs=[
                SettlementLeg("t1:s1", "t1:s3", 2_000),
                SettlementLeg("t1:s2", "t1:s3", 1_900),
                SettlementLeg("t1:s3", HOUSE, 100),
            ],
        )
    assert [t.code for t in posting.transfers] == ["pot", "pot", "rake"]
    assert (_stake("t1:s1"), _stake("t1:s2"), _stake("t1:s3")) == (8_000, 8_100, 13_800)
    assert house_account(kind=AccountKind.HOUSE_RAKE, currency="CHIPS").balance >= 100
    with transaction.atomic():
        seat_cash_out(
            user_id=c.pk, seat_ref="t1:s3", amount=13_800, currency="CHIPS",
            transfer_id=uuid.uuid4(),
        )  # fmt: skip
    assert player_account(user_id=c.pk, currency="CHIPS").balance == 103_800
    assert ledger_audit().ok


def test_settling_a_hand_again_is_a_replay_and_other_legs_a_conflict(players):
    a, b, _ = players
    with transaction.atomic():
        _buy_in(a, "t2:s1", 5_000)
        _buy_in(b, "t2:s2", 5_000)
    legs = [SettlementLeg("t2:s1", "t2:s2", 1_000)]
    with transaction.atomic():
        first = hand_settle(hand_ref="hand:2", currency="CHIPS", legs=legs)
    with transaction.atomic():
        assert hand_settle(hand_ref="hand:2", currency="CHIPS", legs=legs).replayed
    other = [SettlementLeg("t2:s1", "t2:s2", 999)]
    with pytest.raises(TransferConflict), transaction.atomic():
        hand_settle(hand_ref="hand:2", currency="CHIPS", legs=other)
    assert not first.replayed and _stake("t2:s2") == 6_000


def test_a_refused_settlement_leaves_the_table_transaction_usable(players):
    a, b, _ = players
    with transaction.atomic():
        _buy_in(a, "t3:s1", 1_000)
        _buy_in(b, "t3:s2", 1_000)
    with transaction.atomic():
        with pytest.raises(InsufficientFunds):
            hand_settle(
                hand_ref="hand:3",
                currency="CHIPS",
                legs=[SettlementLeg("t3:s1", "t3:s2", 1_001)],
            )
        hand_settle(
            hand_ref="hand:3b",
            currency="CHIPS",
            legs=[SettlementLeg("t3:s1", "t3:s2", 1_000)],
        )
    assert (_stake("t3:s1"), _stake("t3:s2")) == (0, 2_000)


def test_a_buy_in_beyond_the_player_cash_is_refused(players):
    with pytest.raises(InsufficientFunds), transaction.atomic():
        _buy_in(players[0], "t4:s1", 100_001)


# Outside any transaction: no test transaction may wrap it.
@pytest.mark.django_db(transaction=True)
def test_table_money_moves_refuse_to_run_outside_a_transaction(players):
    with pytest.raises(TransactionRequired):
        _buy_in(players[0], "t5:s1", 1)
    with pytest.raises(TransactionRequired):
        seat_cash_out(
            user_id=players[0].pk, seat_ref="t5:s1", amount=1, currency="CHIPS",
            transfer_id=uuid.uuid4(),
        )  # fmt: skip
    with pytest.raises(TransactionRequired):
        hand_settle(hand_ref="h", currency="CHIPS", legs=[])


def test_an_empty_settlement_is_refused(players):
    with pytest.raises(InvalidRequest), transaction.atomic():
        hand_settle(hand_ref="h", currency="CHIPS", legs=[])
