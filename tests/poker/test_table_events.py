"""Typed table events (poker.table_events): what a command writes is a frozen, versioned
event whose payload is what is stored and broadcast, and rows stored before still read."""

import dataclasses

import pytest

from handhistory.models import Event
from poker.commands.seating import table_sit
from poker.table_events import (
    TABLE_EVENT_TYPES,
    VERSION,
    ChatPosted,
    HandEvents,
    PlayerSat,
    PlayerSatOut,
    TableEvent,
    TablePaused,
    UnreadableEvent,
    Update,
    read_table_event,
    read_update,
    table_event_from_wire,
)
from tests.support.poker import actor_for, key


def test_a_table_event_is_frozen_and_keyword_only():
    event = PlayerSat(seat=1, user_id=7, username="ann", buy_in=2_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seat = 2
    with pytest.raises(TypeError):
        PlayerSat(1, 7, "ann", 2_000)  # type: ignore[misc]
    assert event.VERSION == VERSION


def test_a_payload_leaves_out_only_the_optional_fields_without_a_value():
    assert PlayerSatOut(seat=3, user_id=7, reason="busted").payload() == {
        "seat": 3, "user_id": 7, "reason": "busted",
    }  # fmt: skip
    # A spectator's chat line has no seat, and says so.
    assert ChatPosted(seat=None, user_id=7, username="ann", text="hi").payload() == {
        "seat": None, "user_id": 7, "username": "ann", "text": "hi",
    }  # fmt: skip


@pytest.mark.parametrize("event", [
    PlayerSat(seat=1, user_id=7, username="ann", buy_in=2_000),
    PlayerSatOut(seat=1, user_id=7, username="ann", reason="timeouts"),
    ChatPosted(seat=2, user_id=7, username="ann", text="gl"),
])  # fmt: skip
def test_a_written_event_reads_back_as_written(event: TableEvent):
    read = read_table_event(type(event).__name__, event.VERSION, event.payload())
    assert read == {"type": type(event).__name__, **event.payload()}


def test_a_version_1_row_still_reads_in_todays_names():
    read = read_table_event("PlayerSat", 1, {"seat": 1, "player": 7, "buy_in": 2_000},
                            usernames={7: "ann"})  # fmt: skip
    assert read == {"type": "PlayerSat", **PlayerSat(seat=1, user_id=7, username="ann",
                                                     buy_in=2_000).payload()}  # fmt: skip
    chat = read_table_event("ChatPosted", 1, {"seat": None, "player_id": 7, "player": "ann",
                                              "text": "hi"})  # fmt: skip
    assert chat == {"type": "ChatPosted", "seat": None, "text": "hi", "username": "ann",
                    "user_id": 7}  # fmt: skip


@pytest.mark.parametrize("event", [
    PlayerSat(seat=1, user_id=7, username="ann", buy_in=2_000),
    PlayerSatOut(seat=1, user_id=7, reason="busted"),
    ChatPosted(seat=None, user_id=7, username="ann", text="hi"),
    TablePaused(by=None),
])  # fmt: skip
def test_an_event_on_the_wire_is_typed_again_as_written(event: TableEvent):
    wire = {"type": type(event).__name__, **event.payload()}
    assert table_event_from_wire(wire) == event


def test_a_version_1_event_is_typed_in_todays_names_and_an_unknown_type_is_refused():
    read = read_table_event("PlayerSatIn", 1, {"seat": 2, "player": 7}, usernames={7: "ann"})
    typed = table_event_from_wire(read)
    assert (typed.seat, typed.user_id, typed.username) == (2, 7, "ann")
    assert set(TABLE_EVENT_TYPES) >= {"PlayerSat", "ChatPosted", "HandBegan", "TableClosed"}
    with pytest.raises(UnreadableEvent):
        table_event_from_wire({"type": "PlayerDanced", "seat": 1})


def test_an_update_reads_as_typed_events_in_order():
    update = read_update({
        "type": "update", "schema": VERSION, "version": 9, "public": {"seats": []},
        "events": [
            {"kind": "table", "event": {"type": "ChatPosted", "seat": 1, "user_id": 7,
                                        "username": "ann", "text": "gl"}},
            {"kind": "hand", "hand": 4, "events": [
                {"type": "HoleCardsDealt", "version": 1, "seat": 3, "cards": None}]},
        ],
    })  # fmt: skip
    assert update == Update(
        version=9,
        events=(
            ChatPosted(seat=1, user_id=7, username="ann", text="gl"),
            HandEvents(hand=4, events=({"type": "HoleCardsDealt", "version": 1, "seat": 3,
                                        "cards": None},)),
        ),
        public={"seats": []},
    )  # fmt: skip
    assert update.has_hand_events
    assert update.events[1].dealt_to(3) and not update.events[1].dealt_to(1)
    with pytest.raises(UnreadableEvent):
        read_update({"version": 1, "events": [{"kind": "lobby"}]})


@pytest.mark.django_db
def test_a_command_stores_the_typed_event_at_its_version(table, player):
    t, u = table(), player()
    table_sit(table_id=t.pk, player_id=u.pk, buy_in=2_000, seat=4, key=key(), actor=actor_for(u))
    row = Event.objects.get(stream=t.stream, type="PlayerSat")
    assert row.version == PlayerSat.VERSION
    assert row.payload == PlayerSat(seat=4, user_id=u.pk, username=u.get_username(),
                                    buy_in=2_000).payload()  # fmt: skip
