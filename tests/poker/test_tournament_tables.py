"""Tournament tables (issue 29, the poker side): chips are not money, every hand plays the
tournament's current level (read through ``poker.tournament_hooks``), an absent player
stays in, the busted leave the table and the tournament hears of it, the cash-only
commands are refused, and the view names the tournament and the level."""

import random

import pytest
from django.db import IntegrityError, transaction

from audit.checks import check_table_stakes
from handhistory.models import Event, Hand
from handhistory.store import SYSTEM
from handhistory.verification import verify_settlements
from ledger.models import Account, Transfer
from poker import tournament_hooks
from poker.commands.play import table_act, table_timeout
from poker.commands.runner import TableError
from poker.commands.seating import (
    table_leave,
    table_sit,
    table_sit_in,
    table_sit_out,
    table_top_up,
)
from poker.commands.staff import table_close
from poker.commands.tournament import (
    table_deal,
    table_move_out,
    table_seat_tournament_player,
    tournament_table_create,
)
from poker.models import Seat, Table, TableUpdate
from poker.selectors import table_view
from poker.tournament_hooks import Level, TournamentHooksMissing
from tests.support.poker import actor_for, key, play_random_hands
from tests.support.tables_api import post, tables_url

pytestmark = pytest.mark.django_db

DIRECTOR = SYSTEM


class FakeDirector:
    """The tournament's side as the hook sees it: a level that tests change, and the
    hands it was told of."""

    def __init__(self):
        self.level = Level(small_blind=50, big_blind=100)
        self.finished = []
        self.knockouts = []  # of each hand: who busted each busted player
        self.held = set()  # the tables it holds from dealing
        self.asked = []

    def level_of(self, tournament_id):
        return self.level

    def hand_finished(self, table_id, hand_id, stacks, busted, knockouts):
        self.finished.append((table_id, hand_id, dict(stacks), list(busted)))
        self.knockouts.append(dict(knockouts))

    def may_deal(self, tournament_id, table_id):
        self.asked.append((tournament_id, table_id))
        return table_id not in self.held


@pytest.fixture
def director():
    fake = FakeDirector()
    previous = tournament_hooks.register(
        level_of=fake.level_of, hand_finished=fake.hand_finished, may_deal=fake.may_deal
    )
    yield fake
    tournament_hooks.restore(previous)


_numbers = iter(range(1, 10_000))


def _t_table(tournament_id=7, max_seats=6):
    return tournament_table_create(
        tournament_id=tournament_id, table_number=next(_numbers), name="T7", max_seats=max_seats
    )


def _seat(t, user, seat, chips, deal=True):
    return table_seat_tournament_player(
        table_id=t.pk,
        player_id=user.pk,
        seat=seat,
        chips=chips,
        key=key(),
        actor=DIRECTOR,
        deal=deal,
    )


def _seat_all(t, users, chips):
    """Seats ``users`` at seats 1, 2, ...: the last one seated deals the first hand."""
    for n, u in enumerate(users, start=1):
        _seat(t, u, n, chips, deal=n == len(users))


def _chips(t):
    return {s.player_id: s.chips for s in Seat.objects.filter(table=t)}


def _counts():
    return Event.objects.count(), Transfer.objects.count(), Seat.objects.count()


def _bets(t):
    return {s["seat"]: s["bet"] for s in table_view(table_id=t.pk, viewer_id=None)["seats"]}


def _actor(t):
    view = table_view(table_id=t.pk, viewer_id=None)
    return next(s["user_id"] for s in view["seats"] if s["seat"] == view["hand"]["actor_seat"])


def _act(t, user, action, amount=None):
    table_act(
        table_id=t.pk,
        player_id=user.pk,
        action=action,
        amount=amount,
        key=key(),
        actor=actor_for(user),
    )


def _fold_current_hand(t, users):
    """Everyone to act folds until the hand ends (the last one left wins the blinds)."""
    by_id = {u.pk: u for u in users}
    hand = Table.objects.get(pk=t.pk).current_hand_id
    while Table.objects.get(pk=t.pk).current_hand_id == hand:
        who = _actor(t)
        _act(t, by_id[who], "fold", None)


def test_a_seat_holds_either_a_stake_account_or_chips_never_both_nor_neither(director, player):
    t = _t_table()
    user = player()
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(table=t, number=1, player=user)
    stake = Account.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(table=t, number=1, player=user, chips=100, stake_account=stake)


def test_a_tournament_table_has_no_buy_in_no_rake_and_its_number_is_unique(director):
    t = _t_table(tournament_id=8)
    assert (t.min_buy_in, t.max_buy_in, t.rake_bps, t.is_tournament) == (0, 0, 0, True)
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=t.pk).update(rake_bps=500)
    second = _t_table(tournament_id=8)
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=second.pk).update(tournament_table=t.tournament_table)


def test_every_hand_plays_the_level_the_tournament_is_in_now(director, player):
    t = _t_table()
    users = [player() for _ in range(3)]
    _seat_all(t, users, 5_000)
    assert sorted(_bets(t).values()) == [0, 50, 100]
    assert table_view(table_id=t.pk, viewer_id=None)["hand"]["total_pot"] == 150
    director.level = Level(small_blind=100, big_blind=200, ante=25)
    _fold_current_hand(t, users)
    # The next hand posts the new level: antes go to the pot, the blinds are bet.
    assert sorted(_bets(t).values()) == [0, 100, 200]
    view = table_view(table_id=t.pk, viewer_id=None)
    assert view["hand"]["total_pot"] == 300 + 3 * 25
    assert view["level"] == {
        "small_blind": 100,
        "big_blind": 200,
        "ante": 25,
        "big_blind_ante": False,
    }


def test_with_a_big_blind_ante_the_big_blind_posts_the_ante_for_the_whole_table(director, player):
    director.level = Level(small_blind=50, big_blind=100, ante=100, big_blind_ante=True)
    t = _t_table()
    users = [player() for _ in range(3)]
    _seat_all(t, users, 5_000)
    view = table_view(table_id=t.pk, viewer_id=None)
    assert view["hand"]["total_pot"] == 50 + 100 + 3 * 100
    stacks = sorted(s["stack"] + s["bet"] for s in view["seats"])
    assert stacks == [5_000 - 300, 5_000, 5_000]


def test_without_a_registered_director_a_tournament_table_refuses_to_deal(director, player):
    t = _t_table()
    a, b = player(), player()
    _seat(t, a, 1, 1_000)
    previous = tournament_hooks.registered()
    tournament_hooks.restore(None)
    try:
        before = _counts()
        with pytest.raises(TournamentHooksMissing) as refused:
            _seat(t, b, 2, 1_000)
        assert refused.value.code == "tournament_hooks_missing"
        assert _counts() == before and Table.objects.get(pk=t.pk).current_hand_id is None
    finally:
        tournament_hooks.restore(previous)


def test_chips_are_conserved_and_move_no_money(director, player):
    t = _t_table()
    users = [player() for _ in range(4)]
    _seat_all(t, users, 3_000)
    transfers = Transfer.objects.count()
    balances = list(Account.objects.order_by("pk").values_list("pk", "balance"))
    play_random_hands(t, users, hands=15, rng=random.Random(29))
    # Every hand ends with the chips its players started it with: no rake, no leak.
    for _, hand_id, stacks, _ in director.finished:
        hand = Hand.objects.get(pk=hand_id)
        started = Event.objects.get(stream=hand.stream, type="HandStarted").payload
        assert sum(stacks.values()) == sum(started["starting_stacks"])
    assert director.finished
    view = table_view(table_id=t.pk, viewer_id=None)
    in_pots = sum(p["amount"] for p in view["hand"]["pots"]) if view["hand"] else 0
    assert sum(s["stack"] + s["bet"] for s in view["seats"]) + in_pots == 4 * 3_000
    assert Transfer.objects.count() == transfers
    assert list(Account.objects.order_by("pk").values_list("pk", "balance")) == balances
    assert not Account.objects.filter(owner_ref__startswith=f"table:{t.pk}:").exists()


def test_a_busted_player_leaves_the_table_and_the_tournament_hears_who_busted_them(
    director, player
):
    t = _t_table()
    short, deep = player(), player()
    _seat(t, short, 1, 150)
    _seat(t, deep, 2, 10_000)
    users = {short.pk: short, deep.pk: deep}
    for _ in range(1_000):
        if Seat.objects.filter(table=t).count() < 2:
            break
        who = _actor(t)
        legal = table_view(table_id=t.pk, viewer_id=who)["you"]["legal_actions"]
        if {"bet", "raise"} & set(legal["actions"]):
            action = "raise" if "raise" in legal["actions"] else "bet"
            amount = legal["max_to"]
        else:
            action, amount = ("call" if "call" in legal["actions"] else "check"), None
        _act(t, users[who], action, amount)
    (survivor,) = Seat.objects.filter(table=t)
    busted = short.pk if survivor.player_id == deep.pk else deep.pk
    assert survivor.chips == 10_150
    table_id, hand_id, stacks, out = director.finished[-1]
    assert (table_id, out, stacks[busted]) == (t.pk, [busted], 0)
    assert director.knockouts[-1] == {busted: (survivor.player_id,)}
    assert all(k == {} for k in director.knockouts[:-1])  # no bust: nobody named
    assert Event.objects.filter(
        stream=t.stream, type="PlayerBusted", payload__user_id=busted, payload__hand=hand_id
    ).exists()
    assert Table.objects.get(pk=t.pk).current_hand_id is None  # one player: no hand


def test_an_absent_player_stays_in_posting_and_folded_by_the_clock_every_hand(director, player):
    t = _t_table()
    users = [player() for _ in range(3)]
    away = users[0]
    _seat_all(t, users, 5_000)
    by_id = {u.pk: u for u in users}
    hands = set()
    while len(hands) < 5:
        table = Table.objects.get(pk=t.pk)
        hand = Hand.objects.get(pk=table.current_hand_id)
        hands.add(hand.pk)
        assert away.pk in hand.player_ids
        who = _actor(t)
        if who == away.pk:
            Hand.objects.filter(pk=hand.pk).update(deadline="2000-01-01T00:00:00Z")
            assert table_timeout(table_id=t.pk, expected_version=table.version)["timed_out"]
        else:
            legal = table_view(table_id=t.pk, viewer_id=who)["you"]["legal_actions"]
            action = "call" if "call" in legal["actions"] else "check"
            _act(t, by_id[who], action, None)
    seat = Seat.objects.get(table=t, player=away)
    assert seat.state == Seat.State.ACTIVE and seat.consecutive_timeouts >= 3
    assert not Event.objects.filter(stream=t.stream, type="PlayerSatOut").exists()


def test_cash_only_commands_are_refused_at_a_tournament_table_and_change_nothing(
    director, player, make_user
):
    t = _t_table()
    a, b, stranger = player(), player(), player()
    _seat(t, a, 1, 1_000)
    _seat(t, b, 2, 1_000)
    admin = make_user(role="admin")
    before = _counts()
    balances = list(Account.objects.order_by("pk").values_list("balance", flat=True))
    commands = [
        lambda: table_sit(
            table_id=t.pk, player_id=stranger.pk, buy_in=1_000, key=key(), actor=actor_for(stranger)
        ),
        lambda: table_top_up(
            table_id=t.pk, player_id=a.pk, amount=100, key=key(), actor=actor_for(a)
        ),
        lambda: table_leave(table_id=t.pk, player_id=a.pk, key=key(), actor=actor_for(a)),
        lambda: table_sit_out(table_id=t.pk, player_id=a.pk, key=key(), actor=actor_for(a)),
        lambda: table_sit_in(table_id=t.pk, player_id=a.pk, key=key(), actor=actor_for(a)),
        lambda: table_close(table_id=t.pk, actor=actor_for(admin)),
    ]
    for command in commands:
        with pytest.raises(TableError) as refused:
            command()
        assert refused.value.code == "tournament_table"
        assert f"tournament {t.tournament_id}" in str(refused.value)
    assert _counts() == before
    assert list(Account.objects.order_by("pk").values_list("balance", flat=True)) == balances


def test_a_player_holds_one_seat_per_tournament(director, player):
    first, second, other = _t_table(tournament_id=9), _t_table(tournament_id=9), _t_table(10)
    a, b = player(), player()
    _seat(first, a, 1, 1_000)
    for t, user, seat, code in (
        (second, a, 1, "seated_elsewhere"),
        (first, a, 2, "already_seated"),
        (first, b, 1, "seat_taken"),
    ):
        with pytest.raises(TableError) as refused:
            _seat(t, user, seat, 1_000)
        assert refused.value.code == code
    assert _seat(other, a, 1, 1_000)["seat"] == 1
    # The database holds the rule too, for seats two tables' locks do not order.
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(table=second, number=2, player=a, chips=1, tournament_id=9)


def test_the_director_commands_run_only_at_tournament_tables(director, player, table):
    cash = table()
    a = player()
    for command in (
        lambda: _seat(cash, a, 1, 1_000),
        lambda: table_move_out(table_id=cash.pk, player_id=a.pk, key=key(), actor=DIRECTOR),
        lambda: table_deal(table_id=cash.pk, actor=DIRECTOR),
    ):
        with pytest.raises(TableError) as refused:
            command()
        assert refused.value.code == "not_tournament_table"


def test_a_player_moves_out_with_their_chips_but_not_during_their_hand(director, player):
    t = _t_table()
    a, b, c = player(), player(), player()
    _seat(t, a, 1, 1_000)
    _seat(t, b, 2, 1_000)
    with pytest.raises(TableError) as refused:
        table_move_out(table_id=t.pk, player_id=a.pk, key=key(), actor=DIRECTOR)
    assert refused.value.code == "in_hand"
    _seat(t, c, 3, 700)  # joins mid-hand: not in it, may move out at once
    out = table_move_out(table_id=t.pk, player_id=c.pk, key=key(), actor=DIRECTOR)
    assert (out["seat"], out["chips"]) == (3, 700)
    assert not Seat.objects.filter(table=t, player=c).exists()
    assert Event.objects.filter(stream=t.stream, type="PlayerMovedOut", payload__chips=700).exists()


def test_a_table_its_tournament_holds_deals_no_hand_until_the_director_deals_it(director, player):
    t = _t_table(tournament_id=11)
    a, b, c = player(), player(), player()
    director.held.add(t.pk)
    _seat_all(t, [a, b], 1_000)  # the last seat would deal: the tournament holds the table
    assert Table.objects.get(pk=t.pk).current_hand_id is None
    assert director.asked == [(11, t.pk)]
    counts = _counts()

    assert table_deal(table_id=t.pk, actor=DIRECTOR)["noop"] is True
    assert _counts() == counts

    director.held.clear()
    assert table_deal(table_id=t.pk, actor=DIRECTOR)["dealt"] is True
    hand = Table.objects.get(pk=t.pk).current_hand_id
    assert hand is not None
    # A hand running: nothing to deal, and a player seated meanwhile waits for the next.
    _seat(t, c, 3, 1_000)
    assert table_deal(table_id=t.pk, actor=DIRECTOR)["noop"] is True
    assert Table.objects.get(pk=t.pk).current_hand_id == hand


def test_the_dealer_asks_the_tournament_only_when_a_hand_could_start(director, player):
    t = _t_table(tournament_id=12)
    _seat(t, player(), 1, 1_000)  # one player: no hand, nothing to ask

    assert director.asked == []


def test_a_director_command_runs_once_per_key(director, player):
    t = _t_table()
    a = player()
    k = key()
    first = table_seat_tournament_player(
        table_id=t.pk, player_id=a.pk, seat=1, chips=500, key=k, actor=DIRECTOR
    )
    again = table_seat_tournament_player(
        table_id=t.pk, player_id=a.pk, seat=1, chips=500, key=k, actor=DIRECTOR
    )
    assert again == {**first, "replayed": True}
    assert Event.objects.filter(stream=t.stream, type="PlayerSeatedWithChips").count() == 1


def test_the_table_view_names_the_tournament_and_its_level_and_a_cash_table_none(
    director, player, table, api_client
):
    t = _t_table(tournament_id=11)
    _seat(t, player(), 2, 1_234)
    view = api_client.get(tables_url(t.pk)).json()
    assert view["tournament"] == {"id": 11, "table_number": t.tournament_table}
    assert view["level"] == {
        "small_blind": 50,
        "big_blind": 100,
        "ante": 0,
        "big_blind_ante": False,
    }
    assert [(s["seat"], s["stack"]) for s in view["seats"]] == [(2, 1_234)]
    cash = api_client.get(tables_url(table().pk)).json()
    assert (cash["tournament"], cash["level"]) == (None, None)


# The stake check reads in a snapshot transaction of its own: it cannot run nested.
@pytest.mark.django_db(transaction=True)
def test_the_audits_stake_check_and_the_settlement_check_pass_tournament_hands(director, player):
    t = _t_table()
    users = [player() for _ in range(3)]
    _seat_all(t, users, 2_000)
    play_random_hands(t, users, hands=3, rng=random.Random(5))
    checked, problems = verify_settlements()
    assert checked >= 3 and problems == []
    assert check_table_stakes().failures == []


def test_every_update_on_the_wire_names_the_tournament_and_its_level(director, player):
    t = _t_table(tournament_id=12)
    _seat_all(t, [player(), player()], 1_000)
    public = TableUpdate.objects.filter(table=t).latest("version").payload["public"]
    assert public["tournament"] == {"id": 12, "table_number": t.tournament_table}
    assert public["level"]["big_blind"] == 100


def test_the_rest_edge_refuses_a_buy_in_at_a_tournament_table_with_its_code(
    director, player, auth_client
):
    t = _t_table()
    client = auth_client(player())
    before = _counts()
    response = post(client, tables_url(t.pk, "sit"), {"buy_in": 2_000})
    assert response.status_code == 422
    assert response.json()["code"] == "tournament_table"
    assert _counts() == before


def test_the_cash_lobby_lists_cash_tables_only(director, table, api_client):
    cash, tournament = table(), _t_table()
    listed = {t["id"] for t in api_client.get("/api/v1/tables/").json()}
    assert cash.pk in listed and tournament.pk not in listed
    page = api_client.get("/").content.decode()
    assert f"/tables/{cash.pk}/" in page and f"/tables/{tournament.pk}/" not in page
