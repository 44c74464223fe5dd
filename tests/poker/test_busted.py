"""A player left with no chips after a hand is sat out by the server (a PlayerSatOut with
reason "busted"), is not dealt in, and may top up (rebuy) and sit in to play again; the
ledger balances throughout."""

import pytest

from handhistory.models import Event, Hand
from ledger.audit import ledger_audit
from ledger.models import Account, Transfer
from poker.commands.play import table_act
from poker.commands.runner import TableError
from poker.commands.seating import table_sit, table_sit_in, table_sit_out, table_top_up
from poker.models import Seat
from poker.selectors import table_view
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db


def _act_as(t, users, choose):
    """The player to act takes ``choose(player_id, legal_actions)`` -> (action, amount)."""
    view = table_view(table_id=t.pk, viewer_id=None)
    assert view["hand"] is not None, "no hand is running"
    actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
    legal = table_view(table_id=t.pk, viewer_id=actor)["you"]["legal_actions"]
    action, amount = choose(actor, legal)
    user = next(u for u in users if u.pk == actor)
    table_act(table_id=t.pk, player_id=actor, action=action, amount=amount, key=key(),
              actor=actor_for(user))  # fmt: skip


def _short_stack_shoves_until_busted(t, users, short):
    """The short stack goes all-in at every chance; the others only call or check, so
    only the short stack can bust."""

    def choose(actor, legal):
        if actor == short.pk and ({"bet", "raise"} & set(legal["actions"])):
            return ("raise" if "raise" in legal["actions"] else "bet"), legal["max_to"]
        return ("call" if "call" in legal["actions"] else "check"), None

    for _ in range(1000):
        seat = Seat.objects.get(table=t, player=short)
        if seat.stake_account.balance == 0:
            return seat
        _act_as(t, users, choose)
    raise AssertionError("the short stack never busted")


def _counts():
    return Event.objects.count(), Transfer.objects.count()


def test_a_busted_player_is_sat_out_not_dealt_in_and_can_rebuy_and_play_again(table, player):
    # The others sit 1,000 times deeper: calling every shove, they could be busted by the
    # short stack only if it won seven all-ins in a row (about 1 in 2,000; at 10 times
    # deeper, three in a row: 1 in 27, which made this test flaky).
    t = table(min_buy_in=1_000, max_buy_in=1_000_000)
    users = [player(), player(amount=1_000_000), player(amount=1_000_000)]
    for u, buy_in in zip(users, (1_000, 1_000_000, 1_000_000), strict=True):
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=buy_in, key=key(), actor=actor_for(u))
    bust = users[0]

    seat = _short_stack_shoves_until_busted(t, users, bust)

    assert seat.state == Seat.State.SITTING_OUT
    event = Event.objects.filter(stream=t.stream, type="PlayerSatOut").last()
    assert event.payload == {"seat": seat.number, "user_id": bust.pk, "reason": "busted"}
    t.refresh_from_db()
    hand = Hand.objects.get(pk=t.current_hand_id)  # the others play on without them
    assert bust.pk not in hand.player_ids
    row = next(
        s for s in table_view(table_id=t.pk, viewer_id=None)["seats"] if s["seat"] == seat.number
    )
    assert (row["state"], row["stack"], row["in_hand"]) == ("sitting_out", 0, False)

    # Sitting in with nothing is refused, and changes nothing.
    before = _counts()
    with pytest.raises(TableError) as refused:
        table_sit_in(table_id=t.pk, player_id=bust.pk, key=key(), actor=actor_for(bust))
    assert refused.value.code == "no_chips"
    assert _counts() == before
    assert Seat.objects.get(pk=seat.pk).state == Seat.State.SITTING_OUT

    # Rebuy (top up) and sit in: dealt in again once the big blind comes round.
    table_top_up(table_id=t.pk, player_id=bust.pk, amount=5_000, key=key(), actor=actor_for(bust))
    table_sit_in(table_id=t.pk, player_id=bust.pk, key=key(), actor=actor_for(bust))
    assert Seat.objects.get(pk=seat.pk).state == Seat.State.ACTIVE
    by_id = {u.pk: u for u in users}
    for _ in range(200):
        t.refresh_from_db()
        hand = Hand.objects.get(pk=t.current_hand_id)
        if bust.pk in hand.player_ids:
            break
        view = table_view(table_id=t.pk, viewer_id=None)
        actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
        table_act(
            table_id=t.pk, player_id=actor, action="fold", key=key(), actor=actor_for(by_id[actor])
        )
    else:
        raise AssertionError("the rebought player was never dealt in")

    assert ledger_audit().ok
    # The ledger settles a hand at its end, so the stakes hold every chip on the table:
    # the buy-ins and the rebuy (no rake at this table).
    stakes = [
        Account.objects.get(pk=s.stake_account_id).balance for s in Seat.objects.filter(table=t)
    ]
    assert sum(stakes) == 1_000 + 1_000_000 + 1_000_000 + 5_000


def _below_the_minimum(t, users):
    """The first player to act sits out on their turn (so folds) in the first hand, ending
    it below the minimum buy-in with no next hand dealt (the other is alone). Returns
    (that user, their stack)."""
    view = table_view(table_id=t.pk, viewer_id=None)
    actor = next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])
    user = next(u for u in users if u.pk == actor)
    table_sit_out(table_id=t.pk, player_id=actor, key=key(), actor=actor_for(user))
    stack = Seat.objects.get(table=t, player=user).stake_account.balance
    assert 0 < stack < t.min_buy_in
    return user, stack


def test_a_rebuy_below_the_table_minimum_is_refused_and_changes_nothing(table, player):
    t = table(min_buy_in=2_000, max_buy_in=1_000_000)
    users = [player(), player(amount=1_000_000), player(amount=1_000_000)]
    for u, buy_in in zip(users, (2_000, 1_000_000, 1_000_000), strict=True):
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=buy_in, key=key(), actor=actor_for(u))
    bust = users[0]
    seat = _short_stack_shoves_until_busted(t, users, bust)

    before = _counts()
    with pytest.raises(TableError) as refused:
        table_top_up(table_id=t.pk, player_id=bust.pk, amount=500, key=key(), actor=actor_for(bust))
    assert refused.value.code == "top_up_too_small"
    assert refused.value.extra == {"min": 2_000, "max": 1_000_000}
    assert "2000" in str(refused.value)
    assert _counts() == before
    assert Seat.objects.get(pk=seat.pk).stake_account.balance == 0
    assert ledger_audit().ok

    table_top_up(table_id=t.pk, player_id=bust.pk, amount=2_000, key=key(), actor=actor_for(bust))
    assert Seat.objects.get(pk=seat.pk).stake_account.balance == 2_000


def test_a_stack_below_the_minimum_tops_up_to_at_least_the_minimum(table, player):
    t = table(min_buy_in=2_000, max_buy_in=20_000)
    users = [player(), player()]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=2_000, key=key(), actor=actor_for(u))
    short, stack = _below_the_minimum(t, users)

    before = _counts()
    with pytest.raises(TableError) as refused:
        table_top_up(table_id=t.pk, player_id=short.pk, amount=2_000 - stack - 1, key=key(),
                     actor=actor_for(short))  # fmt: skip
    assert refused.value.code == "top_up_too_small"
    assert refused.value.extra == {"min": 2_000 - stack, "max": 20_000 - stack}
    assert _counts() == before

    table_top_up(table_id=t.pk, player_id=short.pk, amount=2_000 - stack, key=key(),
                 actor=actor_for(short))  # fmt: skip
    assert Seat.objects.get(table=t, player=short).stake_account.balance == 2_000


def test_top_ups_while_at_or_above_the_minimum_are_free_up_to_the_maximum(table, player):
    t = table(min_buy_in=2_000, max_buy_in=20_000)
    user = player()
    table_sit(table_id=t.pk, player_id=user.pk, buy_in=2_000, key=key(), actor=actor_for(user))
    table_top_up(table_id=t.pk, player_id=user.pk, amount=1, key=key(), actor=actor_for(user))
    with pytest.raises(TableError) as refused:
        table_top_up(table_id=t.pk, player_id=user.pk, amount=18_000, key=key(),
                     actor=actor_for(user))  # fmt: skip
    assert refused.value.code == "top_up_too_large"
    table_top_up(table_id=t.pk, player_id=user.pk, amount=17_999, key=key(), actor=actor_for(user))
    assert Seat.objects.get(table=t, player=user).stake_account.balance == 20_000
