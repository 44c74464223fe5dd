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


def _counts():
    from handhistory.models import Event
    from ledger.models import Transfer
    from poker.models import TableCommand

    return Event.objects.count(), Transfer.objects.count(), TableCommand.objects.count()


@pytest.mark.parametrize("bad_version", ["3", 2.0, True, [3]])
def test_a_version_that_is_not_an_integer_is_a_typed_error_and_changes_nothing(
    table, player, bad_version
):
    from core.errors import InvalidRequest

    t = table()
    a, b = player(), player()
    _sit(t, a, seat=1)
    _sit(t, b, seat=2)
    t.refresh_from_db()
    first = a if t.button_seat == 1 else b
    before = _counts()
    with pytest.raises(InvalidRequest) as err:
        table_act(table_id=t.pk, player_id=first.pk, action="call", version=bad_version, key=key(),
                  actor=actor_for(first))  # fmt: skip
    assert err.value.code == "invalid_version"
    assert _counts() == before


@pytest.mark.parametrize("bad_key", [123, "k" * 129, ["k"]])
def test_a_client_key_that_is_not_a_short_string_is_a_typed_error(table, player, bad_key):
    from core.errors import InvalidRequest

    t = table()
    a = player()
    before = _counts()
    with pytest.raises(InvalidRequest) as err:
        table_sit(table_id=t.pk, player_id=a.pk, buy_in=5_000, key=bad_key, actor=actor_for(a))
    assert err.value.code == "invalid_key"
    assert _counts() == before


@pytest.mark.parametrize("bad", [0, -5, 5_000.0, "5000", True, 2**63])
def test_a_buy_in_that_is_not_a_positive_integer_is_refused_before_any_money_moves(
    table, player, bad
):
    from ledger.errors import InvalidTransfer

    t = table()
    a = player()
    before = _counts()
    with pytest.raises(InvalidTransfer) as err:
        table_sit(table_id=t.pk, player_id=a.pk, buy_in=bad, key=key(), actor=actor_for(a))
    assert err.value.code == "invalid_amount"
    assert _counts() == before


def test_the_reply_to_an_action_that_ends_the_hand_names_that_hands_seats(table, player):
    """The fold ends the hand and the next one starts in the same command, with other
    seats in other positions: the reply still maps each event's player to the seat they
    had in the hand the event belongs to."""
    t = table()
    a, b, c = player(), player(), player()
    _sit(t, a, seat=2)
    _sit(t, b, seat=1)
    _sit(t, c, seat=3)  # waits for the heads-up hand to end, then changes the seating
    t.refresh_from_db()
    hand = Hand.objects.get(pk=t.current_hand_id)
    actor = hand.player_ids[hand_state(hand)[0].actor]
    reply = _act(t, next(u for u in (a, b) if u.pk == actor), "fold")
    t.refresh_from_db()
    assert t.current_hand_id != hand.pk  # the next hand started, three-handed
    assert reply["hand"] == hand.pk
    seated = {s.player_id: s.number for s in Seat.objects.filter(table=t)}
    for event in reply["events"]:
        if "player" in event:
            assert event["seat"] == hand.seat_numbers[event["player"]], event
            assert event["seat"] == seated[hand.player_ids[event["player"]]], event
