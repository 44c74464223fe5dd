"""Open Hand History exports: every object validates against the shipped JSON Schema, and a
small independent reader gives back our events' actions, amounts, pots and stacks in exact
integer minor units."""

from __future__ import annotations

import random
from decimal import Decimal

import orjson
import pytest

from handhistory.exports import FORMATS, ohh
from handhistory.exports.records import STAFF, Viewer, hand_records
from poker.engine.cards import format_card
from poker.engine.events import (
    CardsShown,
    HoleCardsDealt,
    PotAwarded,
)
from tests.support.exports import export
from tests.support.handhistory import TABLES, played_hands, record_of, settled, usd_table_played
from tests.support.ohh import assert_rereads_as_played, load, reread, valid


@pytest.mark.django_db
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_every_ohh_export_validates_and_rereads_to_our_events_and_the_settled_stacks(
    table, player, variant
):
    _, users, ids = played_hands(table, player, hands=25, seed=15, **TABLES[variant])
    records = hand_records(ids)
    assert len(records) >= 5
    for record in records:
        for viewer in (STAFF, Viewer(user_id=users[0].pk), Viewer(user_id=users[2].pk)):
            theirs = assert_rereads_as_played(record, viewer)
            assert list(theirs["final"].values()) == [
                s
                for _, s in sorted(zip(record.seats, settled(record.hand_id, record), strict=True))
            ]


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["NT", "PO"])
def test_all_in_hands_with_side_pots_and_uncalled_bets_reread_exactly(table, player, variant):
    _, users, ids = played_hands(table, player, hands=3, seed=None, **TABLES[variant])
    records = hand_records(ids)
    assert any(isinstance(e, PotAwarded) and e.pot > 0 for e in records[1].events)
    for record in records:
        for viewer in (STAFF, Viewer(user_id=users[1].pk)):
            assert_rereads_as_played(record, viewer)


@pytest.mark.django_db
def test_real_currency_amounts_are_major_units_that_reread_to_the_exact_cents(table, make_user):
    _, users, ids = usd_table_played(table, make_user, hands=15, seed=4, rake_bps=500, rake_cap=75)
    records = hand_records(ids)
    text = FORMATS["ohh"].many(records, Viewer(user_id=users[1].pk))
    hands = [valid(load(chunk)) for chunk in text.split("\n\n")]
    assert [h["game_number"] for h in hands] == [str(r.hand_id) for r in records]
    assert {h["currency"] for h in hands} == {"USD"}
    # 5,050 cents is written 50.5: major units, exactly.
    assert any(p["starting_stack"] == Decimal("50.5") for h in hands for p in h["players"])
    for record in records:
        assert_rereads_as_played(record, Viewer(user_id=users[1].pk))


def test_major_units_are_written_exactly_for_any_amount_of_cents():
    rng = random.Random(15)
    amounts = [*range(0, 100_000), *(rng.randrange(10**15) for _ in range(100_000))]
    money = ohh.amount_writer("USD")
    for cents in amounts:
        assert Decimal(orjson.dumps(money(cents)).decode()) * 100 == cents
    assert ohh.amount_writer("CHIPS")(12345) == 12345


def test_a_raise_amount_is_the_chips_the_raise_added_as_the_specification_says():
    # The reference's example: the button opens to $3 (Raise 3), the small blind, $0.50 in,
    # raises to $9 (Raise 8.50), the big blind folds and the button calls $6.
    script = """
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ["d dh p1 AsAd", "d dh p2 7c2d", "d dh p3 KhKd", "p3 cbr 300", "p1 cbr 900",
  "p2 f", "p3 cc", "d db 8c4d2s", "p1 cbr 1200", "p3 f"]
"""
    record = record_of(script)
    hand = valid(load(ohh.hand_ohh(record, Viewer(user_id=13))))
    preflop = [(a["player_id"], a["action"], a["amount"]) for a in hand["rounds"][0]["actions"]]
    # Player ids follow the seats (2, 4, 5): ann (p1) is 0, bob (p2) 1, cy (p3, button) 2.
    assert preflop == [
        (0, "Post SB", Decimal("0.5")),
        (1, "Post BB", Decimal("1.0")),
        (2, "Dealt Cards", Decimal("0.0")),
        (2, "Raise", Decimal("3.0")),
        (0, "Raise", Decimal("8.5")),
        (1, "Fold", Decimal("0.0")),
        (2, "Call", Decimal("6.0")),
    ]
    assert hand["rounds"][0]["actions"][2]["cards"] == ["Kh", "Kd"]
    flop = hand["rounds"][1]
    assert (flop["street"], flop["cards"]) == ("Flop", ["8c", "4d", "2s"])
    assert [(a["action"], a["amount"]) for a in flop["actions"]] == [
        ("Bet", Decimal("12.0")),
        ("Fold", Decimal("0.0")),
    ]
    # The uncalled $12 is not in the pot: 9 + 9 + 1.
    assert hand["pots"] == [
        {
            "number": 0,
            "amount": Decimal("19.0"),
            "rake": Decimal("0.0"),
            "player_wins": [{"player_id": 0, "win_amount": Decimal("19.0")}],
        }
    ]
    assert (hand["hero_player_id"], hand["dealer_seat"], hand["table_size"]) == (2, 5, 6)
    assert hand["start_date_utc"] == "2025-03-14T19:15:07Z"
    assert (hand["game_type"], hand["bet_limit"]["bet_type"]) == ("Holdem", "NL")
    assert_rereads_as_played(record, Viewer(user_id=13))


def test_a_players_ohh_export_holds_their_cards_and_only_the_cards_others_showed():
    record = record_of(
        """
variant = "PO"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [6000, 2500, 4000]
actions = ["d dh p1 AsKsQhJh", "d dh p2 9c9d8c7d", "d dh p3 2c3c4d5d",
  "p3 f", "p1 cc", "p2 cc", "d db Ts6c2h", "p1 cc", "p2 cc", "d db 5s", "p1 cc", "p2 cc",
  "d db Jd", "p1 cc", "p2 cc", "p1 sm AsKsQhJh", "p2 sm 9c9d8c7d"]
"""
    )
    folded = next(e.cards for e in record.events if isinstance(e, HoleCardsDealt) and e.player == 2)
    hidden = {format_card(c) for c in folded}
    for user in (11, 12):
        text = ohh.hand_ohh(record, Viewer(user_id=user))
        assert all(card not in text for card in hidden)
        seen = reread(valid(load(text)))
        seat = record.seats[record.player_ids.index(user)]
        assert list(seen["dealt"]) == [seat]  # their own cards only
        shown = {
            record.seats[e.player]: [format_card(c) for c in e.cards]
            for e in record.events
            if isinstance(e, CardsShown)
        }
        assert seen["shown"] == shown
    # The folder sees their own cards; staff see everyone's and are an observer.
    own = reread(valid(load(ohh.hand_ohh(record, Viewer(user_id=13)))))
    assert set(own["dealt"][record.seats[2]]) == hidden
    staff = valid(load(ohh.hand_ohh(record, STAFF)))
    assert "hero_player_id" not in staff and staff["flags"] == ["Observed"]
    assert len(reread(staff)["dealt"]) == 3


@pytest.mark.django_db
def test_the_hand_api_answers_format_ohh_with_one_json_hand_that_validates(
    folded_hand,
    auth_client,
    make_user,
):
    response = export(folded_hand["others"][0], folded_hand["hand"], "ohh")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    hand = valid(load(response.content.decode()))
    assert hand["game_number"] == str(folded_hand["hand"])
    assert hand["flags"] == [] and "hero_player_id" in hand
    staff = auth_client(make_user(role="support"))
    full = valid(load(export(staff, folded_hand["hand"], "ohh", full=1).content.decode()))
    assert full["flags"] == ["Observed"]
    dealt = [a["cards"] for a in full["rounds"][0]["actions"] if a["action"] == "Dealt Cards"]
    assert folded_hand["cards"] in dealt


def test_heads_up_the_button_posts_the_small_blind_first_in_the_ohh_preflop():
    record = record_of(
        """
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [1000, 1000]
actions = ["d dh p1 AsAd", "d dh p2 7c2d", "p2 f"]
""",
        users=("bb", "btn"),
    )
    hand = valid(load(ohh.hand_ohh(record, STAFF)))
    names = {p["id"]: p["name"] for p in hand["players"]}
    preflop = hand["rounds"][0]["actions"]
    assert [(names[a["player_id"]], a["action"]) for a in preflop[:2]] == [
        ("btn", "Post SB"),
        ("bb", "Post BB"),
    ]
    assert [a["action_number"] for a in preflop] == list(range(1, len(preflop) + 1))
    assert hand["dealer_seat"] == 4  # btn sits in seat 4 (record_of's seats are 2, 4)
