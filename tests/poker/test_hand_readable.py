"""``readable_hand``: a hand in words and steps, as each viewer may see it, from hands
played through the real table service."""

from __future__ import annotations

from typing import Any

import pytest

from handhistory.exports.records import STAFF, HandRecord, Viewer, hand_records
from handhistory.readable import position_labels, readable_hand
from poker.engine.cards import format_cards
from poker.engine.events import (
    CardsShown,
    HandEnded,
    HoleCardsDealt,
    PlayerFolded,
    PotAwarded,
    RakeTaken,
)
from tests.poker import conftest as poker_fixtures
from tests.support.handhistory import TABLES, played_hands, settled

pytestmark = pytest.mark.django_db

player = poker_fixtures.player
table = poker_fixtures.table


def _hole(record: HandRecord) -> list[str]:
    """Every player's hole cards as text, from the stored events."""
    dealt = {e.player: e.cards for e in record.events if isinstance(e, HoleCardsDealt)}
    return [format_cards(dealt[i]) for i in range(len(record.seats))]


def _shown(record: HandRecord) -> set[int]:
    return {e.player for e in record.events if isinstance(e, CardsShown)}


def test_position_labels_name_the_blinds_the_button_and_the_seats_between():
    assert position_labels(2) == ("BB", "BTN")
    assert position_labels(3) == ("SB", "BB", "BTN")
    assert position_labels(4) == ("SB", "BB", "UTG", "BTN")
    assert position_labels(6) == ("SB", "BB", "UTG", "HJ", "CO", "BTN")
    assert position_labels(10) == (
        "SB", "BB", "UTG", "UTG+1", "UTG+2", "UTG+3", "LJ", "HJ", "CO", "BTN",
    )  # fmt: skip


def test_players_have_usernames_seats_positions_and_cards_as_text(table, player):
    _, users, ids = played_hands(table, player, hands=6, seed=11, **TABLES["NT"])
    for record in hand_records(ids):
        hole = _hole(record)
        me = users[0].pk
        mine = record.player_ids.index(me) if me in record.player_ids else None
        out = readable_hand(record, Viewer(user_id=me))
        assert [p["seat"] for p in out["players"]] == list(record.seats)
        assert [p["username"] for p in out["players"]] == list(record.usernames)
        assert [p["position"] for p in out["players"]] == list(position_labels(len(record.seats)))
        assert out["players"][-1]["position"] == "BTN"
        assert out["button_seat"] == record.seats[-1]
        for i, p in enumerate(out["players"]):
            if i == mine:
                assert p["cards"] == hole[i] and len(p["cards"]) == 4
            assert p["final_stack"] == settled(record.hand_id, record)[i]
            assert p["net"] == p["final_stack"] - p["starting_stack"]
        assert len(out["board"]) in (0, 6, 8, 10)


def test_a_folded_opponents_cards_are_null_for_a_player_and_text_for_staff(table, player):
    _, users, ids = played_hands(table, player, hands=12, seed=3, **TABLES["NT"])
    checked = 0
    for record in hand_records(ids):
        hole = _hole(record)
        shown = _shown(record)
        folded = {e.player for e in record.events if isinstance(e, PlayerFolded)}
        for viewer_user in users:
            me = record.player_index(Viewer(user_id=viewer_user.pk))
            if me is None:
                continue
            player_view = readable_hand(record, Viewer(user_id=viewer_user.pk))
            for i in range(len(record.seats)):
                cards = player_view["players"][i]["cards"]
                if i == me or i in shown:
                    assert cards == hole[i]
                else:
                    assert cards is None
                    # Not anywhere else in the answer either: not in a step, nor a text.
                    assert hole[i] not in str(player_view)
                    checked += i in folded
        staff = readable_hand(record, STAFF)
        assert [p["cards"] for p in staff["players"]] == hole
        assert all(s["cards"] is not None for s in staff["steps"][-1]["seats"])
    assert checked  # some opponent folded without showing


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_the_last_step_ends_at_the_settled_stacks(table, player, variant):
    _, users, ids = played_hands(table, player, hands=15, seed=15, **TABLES[variant])
    for record in hand_records(ids):
        (ended,) = [e for e in record.events if isinstance(e, HandEnded)]
        for viewer in (STAFF, Viewer(user_id=users[1].pk)):
            out = readable_hand(record, viewer)
            last = out["steps"][-1]
            assert [s["stack"] for s in last["seats"]] == list(ended.final_stacks)
            assert list(ended.final_stacks) == settled(record.hand_id, record)
            assert last["pot"] == 0 and last["board"] == out["board"]
            assert all(s["bet"] == 0 for s in last["seats"])
            # Nothing is created or lost between steps: stacks + bets in + pot stay constant.
            total = sum(record.started.starting_stacks)
            for s in out["steps"]:
                assert sum(x["stack"] for x in s["seats"]) + s["pot"] + s["rake"] == total
            assert out["steps"][0]["kind"] == "start"
            assert [s["stack"] for s in out["steps"][0]["seats"]] == list(
                record.started.starting_stacks
            )


@pytest.mark.parametrize("variant", ["NT", "PO"])
def test_side_pots_list_their_winners_and_rake(table, player, variant):
    _, users, ids = played_hands(table, player, hands=3, seed=None, **TABLES[variant])
    record = hand_records(ids)[1]  # three players all in: a main pot and side pots
    out = readable_hand(record, Viewer(user_id=users[2].pk))
    awarded = [e for e in record.events if isinstance(e, PotAwarded)]
    (rake,) = [e for e in record.events if isinstance(e, RakeTaken)]
    assert any(p["pot"] > 0 for p in out["pots"])
    assert [p["pot"] for p in out["pots"]] == [e.pot for e in awarded]
    for pot, event in zip(out["pots"], awarded, strict=True):
        assert pot["rake"] == rake.amounts[event.pot]
        assert pot["amount"] == sum(event.amounts) + pot["rake"]
        assert [w["seat"] for w in pot["winners"]] == [record.seats[w] for w in event.winners]
        assert all(w["username"] in record.usernames for w in pot["winners"])
    assert out["rake"] == rake.amount == sum(p["rake"] for p in out["pots"])
    assert sum(p["amount"] for p in out["pots"]) == out["total_pot"]
    # Every winner's line is on the last step, with the hand that won when there was one.
    last = out["steps"][-1]
    assert len(last["winners"]) == sum(len(e.winners) for e in awarded)
    assert any(s["kind"] == "win" and "side pot" in s["text"] for s in out["steps"])
    # Everyone all in showed: every card is on the last step for every viewer.
    assert all(s["cards"] for s in last["seats"])


def test_actions_read_as_sentences_in_street_order(table, player):
    _, users, ids = played_hands(table, player, hands=10, seed=21, **TABLES["FT"])
    streets = ["preflop", "flop", "turn", "river"]
    for record in hand_records(ids):
        out = readable_hand(record, Viewer(user_id=users[0].pk))
        order = [streets.index(a["street"]) for a in out["actions"]]
        assert order == sorted(order)
        for a in out["actions"]:
            assert a["username"] == record.usernames[record.seats.index(a["seat"])]
            sentence = {
                "raise": f"{a['username']} raises to {a['amount']}",
                "bet": f"{a['username']} bets {a['amount']}",
                "call": f"{a['username']} calls {a['amount']}",
                "check": f"{a['username']} checks",
                "fold": f"{a['username']} folds",
                "blind": f"{a['username']} posts blind {a['amount']}",
            }.get(a["kind"])
            if sentence is not None:
                assert a["text"] == sentence
        texts = [s["text"] for s in out["steps"]]
        assert [a["text"] for a in out["actions"]] == [
            t for t in texts if any(t == a["text"] for a in out["actions"])
        ]


def test_an_opponents_shown_cards_appear_on_the_step_they_are_shown(table, player):
    _, users, ids = played_hands(table, player, hands=3, seed=None, **TABLES["NT"])
    record = hand_records(ids)[1]
    me = record.player_index(Viewer(user_id=users[0].pk))
    other = next(i for i in _shown(record) if i != me)
    out = readable_hand(record, Viewer(user_id=users[0].pk))
    seat = record.seats[other]
    show = next(k for k, s in enumerate(out["steps"]) if s["kind"] == "show" and s["seat"] == seat)

    def cards_at(k: int) -> Any:
        return next(s["cards"] for s in out["steps"][k]["seats"] if s["seat"] == seat)

    assert cards_at(show - 1) is None
    assert cards_at(show) == _hole(record)[other]
    # Staff see them from the deal on.
    staff = readable_hand(record, STAFF)
    deal = next(k for k, s in enumerate(staff["steps"]) if s["kind"] == "deal")
    assert next(s["cards"] for s in staff["steps"][deal]["seats"] if s["seat"] == seat)


def test_readable_hand_runs_no_query(table, player, django_assert_num_queries):
    _, users, ids = played_hands(table, player, hands=2, seed=1, **TABLES["NS"])
    records = hand_records(ids)
    with django_assert_num_queries(0):
        for record in records:
            readable_hand(record, Viewer(user_id=users[0].pk))
            readable_hand(record, STAFF)


def test_a_euro_hand_reads_its_amounts_in_euros(table, make_user, client):
    import random

    from poker.commands.seating import table_sit
    from tests.support.poker import actor_for, fund, key, play_random_hands

    eur = table(name="Euro", currency="EUR", small_blind=5, big_blind=10, min_buy_in=1_000,
                max_buy_in=2_000, rake_bps=500, rake_cap=30)  # fmt: skip
    users = [make_user(), make_user()]
    for u in users:
        fund(u, 2_000, currency="EUR")
        table_sit(table_id=eur.pk, player_id=u.pk, buy_in=1_990, key=key(), actor=actor_for(u))
    play_random_hands(eur, users, 1, random.Random(5))
    (record,) = hand_records([eur.hands.order_by("number").first().pk])

    out = readable_hand(record, STAFF)
    texts = [s["text"] for s in out["steps"]]
    assert any(t.endswith("posts blind €0.05") for t in texts), texts
    assert any(t.endswith("posts blind €0.10") for t in texts), texts
    assert any(" wins €" in t for t in texts), texts
    assert out["currency_spec"] == {"code": "EUR", "decimals": 2, "symbol": "€"}
    assert out["players"][0]["starting_stack"] == 1_990  # the data stays in minor units

    client.force_login(users[0])
    page = client.get(f"/hands/{record.hand_id}/").content.decode()
    row = page.split('data-testid="player-', 1)[1].split("</tr>", 1)[0]
    assert ">€19.90<" in row and "1990" not in row
