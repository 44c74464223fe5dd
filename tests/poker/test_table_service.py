import pytest

from ledger.models import Account
from poker.hands import hand_state
from poker.models import Hand, Seat
from poker.services import table_act, table_leave, table_sit
from tests.poker.conftest import actor_for, key

pytestmark = pytest.mark.django_db(transaction=True)


def _sit(t, user, buy_in=10_000, seat=None):
    return table_sit(
        table_id=t.pk, player_id=user.pk, buy_in=buy_in, seat=seat, key=key(), actor=actor_for(user)
    )


def _act(t, user, action, amount=None):
    return table_act(
        table_id=t.pk,
        player_id=user.pk,
        action=action,
        amount=amount,
        key=key(),
        actor=actor_for(user),
    )


def test_two_players_sitting_start_a_hand_and_a_fold_settles_it(table, player):
    t = table()
    a, b = player(), player()
    _sit(t, a, seat=1)
    _sit(t, b, seat=2)
    t.refresh_from_db()
    hand = Hand.objects.get(pk=t.current_hand_id)
    state, _ = hand_state(hand)
    assert state.actor is not None
    # heads-up: the button posts the small blind and acts first pre-flop
    button_seat = t.button_seat
    first = a if button_seat == 1 else b
    _act(t, first, "fold")
    hand.refresh_from_db()
    assert hand.ended_at is not None
    stakes = {
        s.player_id: Account.objects.get(pk=s.stake_account_id).balance
        for s in Seat.objects.filter(table=t)
    }
    assert stakes[first.pk] == 10_000 - 50
    other = b if first == a else a
    assert stakes[other.pk] == 10_000 + 50
    t.refresh_from_db()
    assert t.current_hand_id is not None and t.current_hand_id != hand.pk  # next hand began


def test_leave_between_hands_cashes_out(table, player):
    t = table()
    a = player()
    _sit(t, a)
    result = table_leave(table_id=t.pk, player_id=a.pk, key=key(), actor=actor_for(a))
    assert result["cashed_out"] == 10_000
    assert not Seat.objects.filter(table=t).exists()
