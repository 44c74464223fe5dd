import itertools

import pytest

from handhistory.models import Hand
from ledger.models import Account
from poker.commands.play import table_act
from poker.commands.seating import table_leave, table_sit
from poker.hands import hand_state
from poker.models import Seat
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db


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
        assert "player" not in event, event  # the engine's index stays inside
        if "seat" in event:
            assert event["seat"] in hand.seat_numbers, event
            assert event["seat"] == seated[hand.player_ids[hand.seat_numbers.index(event["seat"])]]


# --- seating rules: who is dealt in, where the button goes, leaving mid-hand ----------------


def _current(t):
    t.refresh_from_db()
    return Hand.objects.get(pk=t.current_hand_id) if t.current_hand_id else None


def _play_out(t, users):
    """Checks or folds the running hand to its end (the next hand may start); returns it."""
    from poker.engine.betting import legal_actions

    by_id = {u.pk: u for u in users}
    hand = _current(t)
    while (running := _current(t)) is not None and running.pk == hand.pk:
        legal = legal_actions(hand_state(running)[0])
        pid = running.player_ids[legal.actor]
        _act(t, by_id[pid], "check" if "check" in legal.actions else "fold")
    hand.refresh_from_db()
    assert hand.ended_at is not None
    return hand


def _ring(table, player, n):
    """n players at seats 1..n, all dealt into the running hand."""
    t = table()
    users = [player() for _ in range(n)]
    for number, user in enumerate(users, start=1):
        _sit(t, user, seat=number)
    while len(_current(t).player_ids) < n:  # players who sat during a hand wait for it
        _play_out(t, users)
    return t, users


def _big_blind_of(hand):
    return hand.player_ids[0 if len(hand.player_ids) == 2 else 1]


def test_a_newcomer_to_a_running_ring_game_waits_and_is_first_dealt_in_as_big_blind(table, player):
    t, users = _ring(table, player, 3)
    newcomer = player()
    _sit(t, newcomer, seat=4)
    assert Seat.objects.get(table=t, player=newcomer).waiting_for_big_blind
    users.append(newcomer)
    for _ in range(5):  # the big blind reaches seat 4 within a round of the button
        _play_out(t, users)
        hand = _current(t)
        if newcomer.pk in hand.player_ids:
            break
        assert len(hand.player_ids) == 3  # everyone else plays on meanwhile
    else:
        pytest.fail("the newcomer was never dealt in")
    assert _big_blind_of(hand) == newcomer.pk
    assert not Seat.objects.get(table=t, player=newcomer).waiting_for_big_blind


def test_a_player_back_from_sitting_out_waits_for_the_big_blind(table, player):
    from poker.commands.seating import table_sit_in, table_sit_out

    t, users = _ring(table, player, 4)
    away = users[3]
    table_sit_out(table_id=t.pk, player_id=away.pk, key=key(), actor=actor_for(away))
    _play_out(t, users)  # the hand they were in (they check or fold when their turn comes)
    assert away.pk not in _current(t).player_ids
    table_sit_in(table_id=t.pk, player_id=away.pk, key=key(), actor=actor_for(away))
    assert Seat.objects.get(table=t, player=away).waiting_for_big_blind
    for _ in range(6):
        _play_out(t, users)
        hand = _current(t)
        if away.pk in hand.player_ids:
            break
    else:
        pytest.fail("the returning player was never dealt in")
    assert _big_blind_of(hand) == away.pk


def test_the_button_moves_to_the_next_seat_that_plays_skipping_one_sitting_out(table, player):
    from poker.commands.seating import table_sit_out

    t, users = _ring(table, player, 4)
    table_sit_out(table_id=t.pk, player_id=users[2].pk, key=key(), actor=actor_for(users[2]))
    _play_out(t, users)  # seat 3 is out from the next hand on
    buttons = []
    for _ in range(4):
        t.refresh_from_db()
        buttons.append(t.button_seat)
        assert 3 not in _current(t).seat_numbers
        _play_out(t, users)
    active = [1, 2, 4]
    for before, after in itertools.pairwise(buttons):
        assert after == active[(active.index(before) + 1) % len(active)], buttons


def test_leaving_during_a_hand_plays_it_out_and_cashes_out_the_final_stack_at_its_end(
    table, player
):
    from handhistory.models import Event
    from poker import money

    t, users = _ring(table, player, 3)
    hand = _current(t)
    state = hand_state(hand)[0]
    leaver = next(u for u in users if u.pk != hand.player_ids[state.actor])
    wallet_before = money.player_cash_account(player_id=leaver.pk, currency="CHIPS").balance
    reply = table_leave(table_id=t.pk, player_id=leaver.pk, key=key(), actor=actor_for(leaver))
    assert reply == {"left": False, "leaving_after_hand": True, "version": reply["version"]}
    seat = Seat.objects.get(table=t, player=leaver)
    assert seat.state == Seat.State.LEAVING
    stake = seat.stake_account_id
    _play_out(t, [u for u in users if u != leaver])  # the leaver checks or folds by itself
    hand.refresh_from_db()
    final = hand_state(hand, use_snapshot=False)[0].stacks[hand.player_ids.index(leaver.pk)]
    assert not Seat.objects.filter(table=t, player=leaver).exists()
    assert Account.objects.get(pk=stake).balance == 0
    wallet = money.player_cash_account(player_id=leaver.pk, currency="CHIPS").balance
    assert wallet == wallet_before + final
    left = Event.objects.get(stream=f"table-{t.pk}", type="PlayerLeft", payload__user_id=leaver.pk)
    assert left.payload["cashed_out"] == final
