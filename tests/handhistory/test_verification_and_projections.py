import io
import uuid

import pytest
from django.core.management import CommandError, call_command

from handhistory.models import Hand, HandSummary, PlayerHandResult
from ledger.audit import ledger_audit
from ledger.models import Account
from ledger.services import ledger_transfer
from poker.models import Seat
from tests.support.handhistory import raked_table_played

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(table, player):
    return raked_table_played(table, player, hands=12, seed=7)


def _rows():
    summaries = sorted(HandSummary.objects.values(), key=lambda r: r["hand_id"])
    results = sorted(
        PlayerHandResult.objects.values(), key=lambda r: (r["hand_id"], r["player_id"])
    )
    for r in results:
        r.pop("id")
    return summaries, results


def test_verify_event_store_passes_after_real_play(played, capsys):
    call_command("verify_event_store")
    out = capsys.readouterr().out
    assert "Event store OK." in out
    assert Hand.objects.filter(ended_at__isnull=False).exists()


def test_rebuild_projections_gives_identical_rows(played):
    before = _rows()
    assert before[0]
    call_command("rebuild_projections")
    assert _rows() == before


def test_projections_match_the_ledger(played):
    t, users = played
    for u in users:
        net = sum(PlayerHandResult.objects.filter(player=u).values_list("net", flat=True))
        seat = Seat.objects.get(table=t, player=u)
        # The hand in progress has moved no money yet: stakes reflect finished hands only.
        assert Account.objects.get(pk=seat.stake_account_id).balance - 5_000 == net


def test_verify_event_store_catches_a_settlement_the_events_do_not_explain(played):
    t, users = played
    hand = Hand.objects.filter(ended_at__isnull=False).first()
    richest_first = sorted(
        (Seat.objects.get(table=t, player=u).stake_account for u in users),
        key=lambda account: -account.balance,
    )
    a, b = richest_first[0].pk, richest_first[1].pk
    ledger_transfer(
        transfer_id=uuid.uuid4(), debit_account_id=a, credit_account_id=b, amount=1,
        currency="CHIPS", code="hand_settlement", reference=f"hand:{hand.pk}",
    )  # fmt: skip
    assert ledger_audit().ok  # a well-formed posting: only the replay can tell it is wrong
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="verification FAILED"):
        call_command("verify_event_store", stdout=out, stderr=err)
    (problem,) = err.getvalue().splitlines()
    # The extra leg is named with the hand it claims to settle.
    assert problem.startswith(f"PROBLEM hand {hand.pk}: ledger settlement ")
    assert f"({a}, {b}, 1)" in problem.split(" != ")[0]
    assert "0 chain problem(s), 1 settlement problem(s)" in out.getvalue()
