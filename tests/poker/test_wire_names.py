"""The wire speaks in seats and people, one meaning per word (docs/protocol.md):

* errors of the rules name seats and usernames (message and ``extra``), never an engine
  index, and change nothing;
* no payload of the API or the table stream has a ``player`` key: hand events carry
  ``seat``, table events ``user_id`` and ``username``, seat rows ``user_id``/``username``;
* what was stored before the rename (version-1 table events, old update-log rows) is still
  read, in the new shape.

Seats 3 and 5 (and 2/4/6) are used on purpose: no seat number equals an engine index.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from handhistory.models import Event, Hand
from handhistory.store import Actor, NewEvent, events_append
from ledger.models import Transfer
from poker.models import Table, TableCommand, TableUpdate
from tests.support.poker import fund
from tests.support.tables_api import act, check_down, fold_hand, post, sit, state, tables_url
from tests.support.wire import AMBIGUOUS, ENGINE_INDEX_WORDING, ambiguous_keys, old_update

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, int, int]:
    return Event.objects.count(), Transfer.objects.count(), TableCommand.objects.count()


@pytest.fixture
def heads_up(auth_client, make_user, table) -> dict[str, Any]:
    """alice at seat 5 and bob at seat 3: a hand runs (bob is on the button)."""
    t = table()
    clients = {}
    for name, number in (("alice", 5), ("bob", 3)):
        user = make_user(name)
        fund(user, 1_000_000)
        clients[number] = auth_client(user)
        sit(clients[number], t.pk, seat=number)
    view = state(clients[3], t.pk)
    actor_seat = view["hand"]["actor_seat"]
    waiting_seat = 5 if actor_seat == 3 else 3
    return {"table": t, "clients": clients, "view": view, "actor": actor_seat,
            "waiting": waiting_seat}  # fmt: skip


def assert_speaks_in_seats(body: dict[str, Any], hand_id: int) -> None:
    assert not ENGINE_INDEX_WORDING.search(body["message"]), body
    assert not AMBIGUOUS & set(body["extra"]), body
    assert body["extra"]["hand"] == hand_id, body


# --- errors ---------------------------------------------------------------------------------


def test_acting_out_of_turn_over_rest_names_seats_and_usernames_not_engine_indexes(heads_up):
    t, clients = heads_up["table"], heads_up["clients"]
    actor, waiting = heads_up["actor"], heads_up["waiting"]
    names = {3: "bob", 5: "alice"}
    hand_id = heads_up["view"]["hand"]["id"]
    before = counts()
    response = act(clients[waiting], t.pk, "call")
    body = response.json()
    assert response.status_code == 422, body
    assert body["code"] == "not_your_turn"
    assert_speaks_in_seats(body, hand_id)
    message = body["message"]
    assert f"seat {actor} ({names[actor]})" in message, message
    assert f"seat {waiting} ({names[waiting]})" in message, message
    assert f"hand {hand_id}" in message and "preflop" in message, message
    assert {k: body["extra"][k] for k in ("seat", "username", "actor_seat", "actor_username")} == {
        "seat": waiting, "username": names[waiting],
        "actor_seat": actor, "actor_username": names[actor],
    }  # fmt: skip
    assert counts() == before


def test_every_refusal_of_the_rules_speaks_in_seats(heads_up, auth_client, make_user, table):
    t, clients, actor = heads_up["table"], heads_up["clients"], heads_up["actor"]
    names = {3: "bob", 5: "alice"}
    hand_id = heads_up["view"]["hand"]["id"]
    legal = state(clients[actor], t.pk)["you"]["legal_actions"]
    before = counts()
    refusals = [
        (("raise", legal["min_to"] - 1), "raise_too_small", True),
        (("raise", legal["max_to"] + 1), "raise_too_large", True),
        (("bet", legal["min_to"]), "cannot_bet", True),
        (("check", None), "cannot_check", True),
        (("call", 12345), "invalid_amount", False),
        (("fold", 10), "invalid_amount", False),
    ]
    for (action, amount), code, names_the_seat in refusals:
        body = act(clients[actor], t.pk, action, amount).json()
        assert body["code"] == code, body
        assert_speaks_in_seats(body, hand_id)
        if names_the_seat:
            assert f"seat {actor} ({names[actor]})" in body["message"], body
            assert (body["extra"]["seat"], body["extra"]["username"]) == (actor, names[actor])
    assert counts() == before

    # A folded player's refusal names their seat too (three-handed, seats 2, 4 and 6).
    t2 = table()
    by_seat = {}
    for number in (2, 4, 6):
        user = make_user(f"p{number}")
        fund(user, 100_000)
        by_seat[number] = auth_client(user)
        sit(by_seat[number], t2.pk, seat=number)
    # Until a hand deals all three in (a newcomer waits for the big blind), fold hands.
    while sum(s["in_hand"] for s in state(by_seat[2], t2.pk)["seats"]) < 3:
        folder = state(by_seat[2], t2.pk)["hand"]["actor_seat"]
        assert act(by_seat[folder], t2.pk, "fold").status_code == 200
    folder = state(by_seat[2], t2.pk)["hand"]["actor_seat"]
    assert act(by_seat[folder], t2.pk, "fold").status_code == 200
    hand2 = state(by_seat[2], t2.pk)["hand"]["id"]
    before = counts()
    body = act(by_seat[folder], t2.pk, "call").json()
    assert body["code"] == "player_folded", body
    assert_speaks_in_seats(body, hand2)
    assert f"seat {folder} (p{folder})" in body["message"], body
    assert body["extra"]["seat"] == folder
    assert counts() == before


# --- payloads --------------------------------------------------------------------------------


def test_no_payload_of_a_few_full_hands_names_a_player_ambiguously(
    heads_up, auth_client, make_user
):
    t, clients = heads_up["table"], heads_up["clients"]
    carol = make_user("carol")
    fund(carol, 100_000)
    c = auth_client(carol)
    sit(c, t.pk, seat=1)  # PlayerSat mid-hand
    assert post(c, tables_url(t.pk, "leave")).status_code == 200  # PlayerLeft
    players = [clients[3], clients[5]]
    hands = [check_down(players, t.pk), fold_hand(players, t.pk), check_down(players, t.pk)]
    assert post(clients[3], tables_url(t.pk, "sit-out")).status_code == 200
    assert post(clients[3], tables_url(t.pk, "sit-in")).status_code == 200
    assert post(clients[3], tables_url(t.pk, "top-up"), {"amount": 100}).status_code in (200, 422)

    from poker.selectors import updates_since

    updates = updates_since(table_id=t.pk, from_version=0)
    assert updates, "the update log keeps every broadcast"
    types = {g["event"]["type"] for u in updates for g in u["events"] if g["kind"] == "table"}
    assert {"PlayerSat", "PlayerLeft", "HandBegan", "HandFinished", "TurnStarted",
            "PlayerSatOut", "PlayerSatIn"} <= types  # fmt: skip
    assert ambiguous_keys(updates) == []
    for u in updates:
        for g in u["events"]:
            if g["kind"] == "table" and "user_id" in g["event"]:
                assert g["event"]["username"] in ("alice", "bob", "carol"), g
            if g["kind"] != "hand":
                continue
            seats = Hand.objects.get(pk=g["hand"]).seat_numbers
            for e in g["events"]:
                if e["type"] == "PotAwarded":
                    assert set(e["winners"]) <= set(seats), e  # seat numbers, not indexes
                if e["type"] in ("PlayerCalled", "PlayerChecked", "BlindPosted", "CardsShown"):
                    assert e["seat"] in seats, e
                if e["type"] == "HoleCardsDealt":
                    assert e["cards"] is None  # public: nobody's hole cards
    # The REST state, the hand list and every hand's detail speak the same names.
    view = state(clients[5], t.pk)
    assert ambiguous_keys(view) == []
    assert {s["username"] for s in view["seats"]} == {"alice", "bob"}
    listing = clients[5].get("/api/v1/hands/").json()
    assert ambiguous_keys(listing) == []
    for summary in listing["results"]:
        assert {p["seat"] for p in summary["players"]} == {3, 5}
    for hand_id in hands:
        detail = clients[5].get(f"/api/v1/hands/{hand_id}/").json()
        assert ambiguous_keys(detail) == [], detail
        assert ambiguous_keys(detail["summary"]) == []


# --- what was stored before the rename ---------------------------------------------------------


def testold_update_log_rows_are_read_in_the_new_shape(heads_up, client):
    t = heads_up["table"]
    hand = Hand.objects.get(pk=heads_up["view"]["hand"]["id"])
    alice, bob = heads_up["clients"][5].user, heads_up["clients"][3].user
    table = Table.objects.get(pk=t.pk)
    # The newest stored update, as the old code wrote it.
    TableUpdate.objects.filter(table=table, version=table.version).update(
        payload=old_update(table.version, hand, alice, bob)
    )
    from poker.selectors import updates_since

    (update,) = updates_since(table_id=t.pk, from_version=table.version - 1)
    assert ambiguous_keys(update) == []
    sat, chat, hand_group, turn = update["events"]
    assert sat["event"] == {"type": "PlayerSat", "seat": 5, "user_id": alice.pk,
                            "username": "alice", "buy_in": 10_000}  # fmt: skip
    assert chat["event"] == {"type": "ChatPosted", "seat": 5, "user_id": alice.pk,
                             "username": "alice", "text": "hi"}  # fmt: skip
    assert turn["event"]["user_id"] == bob.pk and turn["event"]["username"] == "bob"
    folded, awarded = hand_group["events"]
    assert folded == {"type": "PlayerFolded", "version": 1, "seat": hand.seat_numbers[1]}
    assert awarded["winners"] == [hand.seat_numbers[0]]
    assert [(s["seat"], s["username"], s["user_id"]) for s in update["public"]["seats"]] == [
        (3, "bob", bob.pk), (5, "alice", alice.pk)
    ]  # fmt: skip
    # The table page replays the log into its hand log: it still opens.
    client.force_login(alice)
    assert client.get(f"/tables/{t.pk}/").status_code == 200


def test_old_version_1_table_events_still_read_and_verify(heads_up):
    from handhistory.verification import verify_chains
    from poker.table_events import read_table_event

    t = heads_up["table"]
    alice = heads_up["clients"][5].user
    table = Table.objects.get(pk=t.pk)
    new = Event.objects.filter(stream=table.stream, type="PlayerSat").order_by("seq").first()
    assert new.version == 2 and "player" not in new.payload
    with transaction.atomic():
        events_append(stream=table.stream, actor=Actor(), events=[
            NewEvent(type="PlayerSatOut", version=1,
                     payload={"seat": 5, "player": alice.pk, "reason": "timeouts"}),
            NewEvent(type="ChatPosted", version=1,
                     payload={"seat": 5, "player_id": alice.pk, "player": "alice", "text": "gg"}),
        ])  # fmt: skip
    rows = list(Event.objects.filter(stream=table.stream).order_by("seq"))
    read = [read_table_event(r.type, r.version, r.payload) for r in rows]
    assert ambiguous_keys(read) == []
    assert read[-2] == {"type": "PlayerSatOut", "seat": 5, "user_id": alice.pk,
                        "username": "alice", "reason": "timeouts"}  # fmt: skip
    assert read[-1] == {"type": "ChatPosted", "seat": 5, "user_id": alice.pk,
                        "username": "alice", "text": "gg"}  # fmt: skip
    assert verify_chains()[1] == []
    # A table event no code can read is a problem verification names.
    with transaction.atomic():
        events_append(stream=table.stream, events=[NewEvent(type="PlayerSat", version=9)])
    problems = verify_chains()[1]
    assert len(problems) == 1 and "PlayerSat version 9" in problems[0], problems


# The replay answers from the state the heads-up table published, which is kept only
# after a real commit (poker.published).
@pytest.mark.django_db(transaction=True)
def test_an_action_retried_from_before_the_rename_answers_in_seats(heads_up):
    from poker.commands.runner import request_hash as _request_hash

    t, clients, actor = heads_up["table"], heads_up["clients"], heads_up["actor"]
    hand = Hand.objects.get(pk=heads_up["view"]["hand"]["id"])
    user = clients[actor].user
    index = hand.player_ids.index(user.pk)
    request = {"action": "call", "amount": None, "version": None}
    # The outcome the old code stored for this key: the engine index beside the seat.
    TableCommand.objects.create(
        table_id=t.pk, player=user, key="old-key", command="act",
        request_hash=_request_hash("act", request), result={
            "hand": hand.pk, "version": 3, "events": [
                {"type": "PlayerCalled", "version": 1, "player": index, "seat": actor,
                 "amount": 50},
                {"type": "PotAwarded", "version": 1, "pot": 0, "winners": [index],
                 "amounts": [200], "hand": ""},
            ]},
    )  # fmt: skip
    before = counts()
    response = post(clients[actor], tables_url(t.pk, "actions"), {"action": "call"}, key="old-key")
    body = response.json()
    assert response.status_code == 200 and body["replayed"] is True, body
    assert ambiguous_keys(body) == []
    assert body["events"][0]["seat"] == actor
    assert body["events"][1]["winners"] == [actor]
    assert counts() == before


def test_hand_summaries_projected_before_the_rename_read_with_user_ids(heads_up):
    from handhistory.models import HandSummary

    t, clients = heads_up["table"], heads_up["clients"]
    hand_id = fold_hand([clients[3], clients[5]], t.pk)
    summary = HandSummary.objects.get(hand_id=hand_id)
    old = [
        {"seat": p["seat"], "player_id": p["user_id"], "starting_stack": p["starting_stack"]}
        for p in summary.players
    ]
    HandSummary.objects.filter(hand_id=hand_id).update(players=old)  # as the old code wrote it
    alice = clients[5].user
    listing = clients[5].get("/api/v1/hands/").json()
    detail = clients[5].get(f"/api/v1/hands/{hand_id}/").json()
    for players in (listing["results"][0]["players"], detail["summary"]["players"]):
        assert ambiguous_keys(players) == []
        assert {(p["seat"], p["user_id"]) for p in players} >= {(5, alice.pk)}
