"""The table path on its embedded (ORM) store (what SQLite runs under ``make run``), forced
on PostgreSQL, next to the same commands on the PostgreSQL store.

The stores' contract suite (``tests/poker/test_table_store.py``) proves each operation on
both; these run whole commands through each. The embedded lane
(``test_embedded_lane.py``) runs the embedded store on SQLite end to end.
"""

import pytest

from handhistory.models import Hand
from handhistory.verification import verify_chains
from ledger.audit import ledger_audit
from poker import table_io
from poker.commands.play import table_act
from poker.commands.seating import table_leave, table_sit, table_sit_in, table_sit_out
from poker.models import Seat, Table
from poker.selectors import table_view
from tests.support.poker import actor_for, force_embedded_store, key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=["orm", "raw"])
def branch(request, monkeypatch):
    """Runs a test on each storage version of the table path."""
    if request.param == "orm":
        force_embedded_store(monkeypatch)
    table_io._CACHE.clear()
    return request.param


def _seat_two(table, player):
    t = table()
    users = [player(), player()]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    return t, {u.pk: u for u in users}


def _play_passively(t, users, hands):
    """Checks or calls until ``hands`` more hands have ended (nobody busts, so they do)."""
    start = Table.objects.get(pk=t.pk).hands_played
    while True:
        table = Table.objects.get(pk=t.pk)
        if table.hands_played - (1 if table.current_hand_id else 0) - start >= hands:
            return
        assert table.current_hand_id is not None, "no hand runs"
        pid = _actor_id(t)
        legal = table_view(table_id=t.pk, viewer_id=pid)["you"]["legal_actions"]["actions"]
        action = "check" if "check" in legal else "call"
        table_act(table_id=t.pk, player_id=pid, action=action, key=key(),
                  actor=actor_for(users[pid]))  # fmt: skip


def _actor_id(t):
    view = table_view(table_id=t.pk, viewer_id=None)
    seat = view["hand"]["actor_seat"]
    return next(s["user_id"] for s in view["seats"] if s["seat"] == seat)


def test_leaving_on_your_turn_folds_and_cashes_out_on_both_storage_branches(branch, table, player):
    t, users = _seat_two(table, player)
    leaver = _actor_id(t)
    stake = Seat.objects.get(table_id=t.pk, player_id=leaver).stake_account
    stack_after_fold = stake.balance - t.small_blind  # heads-up, the button posted the SB
    result = table_leave(table_id=t.pk, player_id=leaver, key=key(), actor=actor_for(users[leaver]))
    # Heads-up, the fold ended the hand: the leaver is cashed out and gone, and told so.
    assert result["left"] is True and result["cashed_out"] == stack_after_fold
    assert not Seat.objects.filter(table_id=t.pk, player_id=leaver).exists()
    assert Table.objects.get(pk=t.pk).current_hand_id is None
    assert ledger_audit().ok
    assert verify_chains()[1] == []


def test_hands_sit_out_and_sit_in_play_the_same_on_both_storage_branches(branch, table, player):
    t, users = _seat_two(table, player)
    third = player()
    users[third.pk] = third
    table_sit(table_id=t.pk, player_id=third.pk, buy_in=10_000, key=key(), actor=actor_for(third))
    _play_passively(t, users, 3)
    table_sit_out(table_id=t.pk, player_id=third.pk, key=key(), actor=actor_for(third))
    _play_passively(t, users, 3)
    table_sit_in(table_id=t.pk, player_id=third.pk, key=key(), actor=actor_for(third))
    _play_passively(t, users, 4)
    assert Hand.objects.filter(table_id=t.pk, ended_at__isnull=False).count() >= 10
    assert ledger_audit().ok
    assert verify_chains()[1] == []
