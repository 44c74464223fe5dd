"""Money corrections after a confirmed case: ledger transfers with a reason, once per key."""

from __future__ import annotations

import pytest

from core.errors import InvalidRequest
from fraud.services import CaseClosed, case_confirm, case_correct
from ledger.models import Transfer
from poker import money
from tests.support.poker import fund

pytestmark = pytest.mark.django_db


def cash(user):
    return money.player_cash_account(player_id=user.pk, currency="CHIPS").balance


def test_a_correction_moves_chips_back_once_per_key_with_its_reason(open_case, reviewer, make_user):
    staff = reviewer()
    case = open_case()
    dumper, _ = case.players.order_by("pk")
    victim = make_user()
    fund(dumper, 10_000)
    case_confirm(case_id=case.pk, reason="dumping", freeze=True, by=staff)
    for _ in range(2):
        case_correct(case_id=case.pk, from_user_id=dumper.pk, to_user_id=victim.pk,
                     amount=2_500, currency="CHIPS", reason="refund hand 812", key="r1", by=staff)  # fmt: skip
    assert (cash(dumper), cash(victim)) == (7_500, 2_500)
    transfer = Transfer.objects.get(code="correction")
    assert transfer.amount == 2_500
    assert transfer.metadata["reason"] == f"Fraud case {case.pk}: refund hand 812"
    assert transfer.metadata["by"] == staff.pk
    assert case.log.filter(action="corrected").count() == 1


def test_only_a_confirmed_case_corrects_money_and_only_from_its_players(
    open_case, reviewer, make_user
):
    staff = reviewer()
    case = open_case()
    dumper, _ = case.players.order_by("pk")
    stranger, victim = make_user(), make_user()
    fund(dumper, 10_000)
    fund(stranger, 10_000)
    transfers = Transfer.objects.count()
    with pytest.raises(CaseClosed) as open_:
        case_correct(case_id=case.pk, from_user_id=dumper.pk, to_user_id=victim.pk, amount=100,
                     currency="CHIPS", reason="early", key="a", by=staff)  # fmt: skip
    assert open_.value.code == "case_not_confirmed"
    case_confirm(case_id=case.pk, reason="dumping", freeze=False, by=staff)
    with pytest.raises(InvalidRequest) as outsider:
        case_correct(case_id=case.pk, from_user_id=stranger.pk, to_user_id=victim.pk, amount=100,
                     currency="CHIPS", reason="wrong one", key="b", by=staff)  # fmt: skip
    assert outsider.value.code == "not_in_case"
    for bad in (0, -5, 1.5, "100"):
        with pytest.raises(InvalidRequest):
            case_correct(case_id=case.pk, from_user_id=dumper.pk, to_user_id=victim.pk,
                         amount=bad, currency="CHIPS", reason="x", key=f"c{bad}", by=staff)  # fmt: skip
    assert Transfer.objects.count() == transfers
    assert (cash(dumper), cash(stranger), cash(victim)) == (10_000, 10_000, 0)
