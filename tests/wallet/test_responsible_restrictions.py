"""Time-out and self-exclusion: deposits and play refused, withdrawals open, seated
players cashed out (now, or at the end of the hand they are in), staff-only lifting."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import Forbidden, InvalidRequest
from ledger.audit import ledger_audit
from ledger.models import Account, AccountKind, Transfer
from poker import money
from poker.commands.play import table_act
from poker.commands.seating import (
    table_create,
    table_sit,
    table_sit_in,
    table_sit_out,
    table_top_up,
)
from poker.models import Seat
from staff.models import StaffAction
from tests.support.poker import actor_for, fund, key
from tests.support.wallet import balances, post
from wallet.errors import AccountRestricted, RestrictionInForce, RestrictionMinimumTerm
from wallet.models import Restriction
from wallet.responsible import self_exclusion_start, timeout_start
from wallet.restrictions import restriction_check, restriction_impose, restriction_lift

pytestmark = pytest.mark.django_db


def _table(**overrides):
    params = dict(name="R", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
                  max_buy_in=20_000, max_seats=6)  # fmt: skip
    return table_create(**{**params, **overrides})


def _sit(t, user, buy_in=5_000):
    return table_sit(table_id=t.pk, player_id=user.pk, buy_in=buy_in, key=key(),
                     actor=actor_for(user))  # fmt: skip


def _time_out(user, hours=24):
    return timeout_start(user=user, hours=hours, restriction_id=uuid.uuid4())


def _cash(user, currency="CHIPS"):
    return money.player_cash_account(player_id=user.pk, currency=currency).balance


def _chips_everywhere():
    """Every CHIPS balance that is not an issuer's: players, seats and the rake."""
    kinds = [AccountKind.PLAYER_CASH, AccountKind.SEAT_STAKE, AccountKind.HOUSE_RAKE]
    return sum(
        Account.objects.filter(kind__in=kinds, currency="CHIPS").values_list("balance", flat=True)
    )


def test_a_time_out_refuses_deposits_and_says_until_when_but_not_withdrawals(player):
    restriction = _time_out(player.user, hours=48)
    transfers = Transfer.objects.count()
    refused = post(player, "/api/v1/wallet/deposits/", {"amount": 500, "currency": "EUR"})
    assert refused.status_code == 403
    body = refused.json()
    assert body["code"] == "account_restricted"
    assert "time-out until" in body["message"]
    assert body["extra"]["until"] == restriction.ends_at.isoformat()
    assert Transfer.objects.count() == transfers
    withdrawal = post(player, "/api/v1/wallet/withdrawals/", {"amount": 1_000, "currency": "EUR"})
    assert withdrawal.status_code == 201
    assert balances(player)["EUR"]["held"] == 1_000


def test_a_time_out_refuses_a_new_seat(make_user):
    user = make_user()
    fund(user, 100_000)
    _time_out(user)
    t = _table()
    transfers = Transfer.objects.count()
    with pytest.raises(AccountRestricted) as refused:
        _sit(t, user)
    assert "time-out" in refused.value.message
    assert not Seat.objects.filter(player=user).exists()
    assert Transfer.objects.count() == transfers


def test_a_player_whose_seat_was_not_cleared_can_neither_top_up_nor_sit_in(make_user):
    user = make_user()
    fund(user, 100_000)
    t = _table()
    _sit(t, user)
    table_sit_out(table_id=t.pk, player_id=user.pk, key=key(), actor=actor_for(user))
    # The restriction without its unseating (as if that command had failed).
    Restriction.objects.create(user=user, kind="time_out", source="test", reason="r",
                               ends_at=timezone.now() + timedelta(hours=24))  # fmt: skip
    transfers = Transfer.objects.count()
    with pytest.raises(AccountRestricted):
        table_top_up(table_id=t.pk, player_id=user.pk, amount=1_000, key=key(),
                     actor=actor_for(user))  # fmt: skip
    with pytest.raises(AccountRestricted):
        table_sit_in(table_id=t.pk, player_id=user.pk, key=key(), actor=actor_for(user))
    assert Transfer.objects.count() == transfers
    assert Seat.objects.get(table=t, player=user).state == Seat.State.SITTING_OUT


def test_a_seated_player_not_in_a_hand_is_cashed_out_at_once(make_user):
    user = make_user()
    fund(user, 100_000)
    t = _table()
    _sit(t, user, buy_in=7_000)
    assert _cash(user) == 93_000
    chips = _chips_everywhere()
    _time_out(user)
    assert not Seat.objects.filter(table=t, player=user).exists()
    assert _cash(user) == 100_000
    assert _chips_everywhere() == chips
    assert ledger_audit().ok


def test_a_player_in_the_running_hand_plays_it_out_and_is_cashed_out_at_its_end(make_user):
    a, b = make_user(), make_user()
    for u in (a, b):
        fund(u, 100_000)
    t = _table()
    _sit(t, a)
    _sit(t, b)
    t.refresh_from_db()
    assert t.current_hand_id is not None  # two players: a hand runs
    chips = _chips_everywhere()

    _time_out(a)
    seat = Seat.objects.get(table=t, player=a)
    assert seat.state == Seat.State.ACTIVE  # still in the hand, still deciding

    # The hand ends (whoever must act folds); the end cashes the player out.
    hand = t.current_hand
    actor_id = hand.player_ids[hand.actor_index]
    table_act(table_id=t.pk, player_id=actor_id, action="fold", key=key(),
              actor=actor_for(a if actor_id == a.pk else b))  # fmt: skip
    t.refresh_from_db()
    assert not Seat.objects.filter(table=t, player=a).exists()
    assert Seat.objects.filter(table=t, player=b).exists()
    assert t.current_hand_id is None  # no second player: no next hand
    stake_b = Seat.objects.get(table=t, player=b).stake_account.balance
    assert _cash(a) + _cash(b) + stake_b == 200_000  # no rake at this table
    assert _chips_everywhere() == chips
    assert ledger_audit().ok


def test_a_self_exclusion_cannot_be_lifted_by_the_player_nor_by_staff_before_its_end(
    make_user,
):
    user, staff = make_user(), make_user(role="risk")
    exclusion = self_exclusion_start(user=user, months=6, restriction_id=uuid.uuid4())
    assert exclusion.ends_at >= timezone.now() + timedelta(days=180)
    with pytest.raises(Forbidden) as by_player:
        restriction_lift(restriction_id=exclusion.pk, reason="I want to play", by=user)
    assert (by_player.value.code, by_player.value.status) == ("permission_denied", 403)
    with pytest.raises(RestrictionMinimumTerm):
        restriction_lift(restriction_id=exclusion.pk, reason="asked", by=staff)
    assert not StaffAction.objects.exists()
    # Past its end it still holds: it ends only when staff lift it.
    Restriction.objects.filter(pk=exclusion.pk).update(ends_at=timezone.now() - timedelta(1))
    with pytest.raises(AccountRestricted) as refused:
        restriction_check(user_id=user.pk, action="deposit")
    assert "excluded yourself from play until support lifts it" in refused.value.message

    restriction_lift(restriction_id=exclusion.pk, reason="six months passed, asked", by=staff)
    restriction_check(user_id=user.pk, action="deposit")
    logged = StaffAction.objects.get()
    assert (logged.action, logged.target, logged.subject_id, logged.actor_id) == (
        "restriction.lift", f"restriction:{exclusion.pk}", user.pk, staff.pk)  # fmt: skip
    assert logged.reason == "six months passed, asked"


def test_a_time_out_ends_by_itself(make_user):
    user = make_user()
    restriction = _time_out(user)
    with pytest.raises(AccountRestricted):
        restriction_check(user_id=user.pk, action="play")
    Restriction.objects.filter(pk=restriction.pk).update(ends_at=timezone.now())
    restriction_check(user_id=user.pk, action="play")


def test_a_player_may_extend_but_never_shorten_their_own_restriction(make_user):
    user = make_user()
    first = _time_out(user, hours=48)
    with pytest.raises(RestrictionInForce):
        _time_out(user, hours=24)
    longer = _time_out(user, hours=72)
    assert longer.ends_at > first.ends_at
    with pytest.raises(AccountRestricted) as refused:
        restriction_check(user_id=user.pk, action="deposit")
    assert refused.value.extra["until"] == longer.ends_at.isoformat()
    exclusion = self_exclusion_start(user=user, months=6, restriction_id=uuid.uuid4())
    with pytest.raises(RestrictionInForce):
        _time_out(user, hours=1008)  # a time-out would not outlast the exclusion
    assert Restriction.objects.filter(user=user).count() == 3
    assert exclusion.kind == "self_exclusion"


def test_the_same_request_twice_is_one_restriction(make_user):
    user = make_user()
    restriction_id = uuid.uuid4()
    first = timeout_start(user=user, hours=24, restriction_id=restriction_id)
    again = timeout_start(user=user, hours=24, restriction_id=restriction_id)
    assert first.pk == again.pk and Restriction.objects.filter(user=user).count() == 1


@pytest.mark.parametrize("hours", [23, 1009, 0, -24, 48.0, "48", True, None])
def test_time_out_hours_out_of_range_are_refused(make_user, hours):
    with pytest.raises(InvalidRequest) as refused:
        _time_out(make_user(), hours=hours)
    assert refused.value.code == "invalid_duration"
    assert not Restriction.objects.exists()


@pytest.mark.parametrize("months", [5, 0, 121, 6.0, "6"])
def test_self_exclusion_months_out_of_range_are_refused(make_user, months):
    with pytest.raises(InvalidRequest) as refused:
        self_exclusion_start(user=make_user(), months=months, restriction_id=uuid.uuid4())
    assert refused.value.code == "invalid_duration"
    assert not Restriction.objects.exists()


def test_staff_cannot_impose_a_players_own_kinds(make_user):
    with pytest.raises(InvalidRequest) as refused:
        restriction_impose(user_id=make_user().pk, kind="time_out", source="s", reason="r",
                           by=None)  # fmt: skip
    assert refused.value.code == "self_imposed_only"


def test_a_fraud_freeze_stays_unnamed_when_a_time_out_blocks_too(make_user):
    user = make_user()
    restriction_impose(user_id=user.pk, kind="fraud_freeze", source="case:1", reason="r", by=None)
    with pytest.raises(AccountRestricted) as frozen:
        restriction_check(user_id=user.pk, action="play")
    assert "under review" in frozen.value.message
    _time_out(user)
    with pytest.raises(AccountRestricted) as refused:
        restriction_check(user_id=user.pk, action="play")
    assert "time-out" in refused.value.message and "review" not in refused.value.message
