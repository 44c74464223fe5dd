"""poker.ws_updates: an update's wire text, and when it makes a private frame due (the
consumer's end-to-end behaviour is in test_ws_protocol.py and test_ws_privacy.py)."""

import json

from poker.table_events import VERSION, read_update
from poker.ws_updates import Due, Watcher, received

ME, OTHER = 7, 8


def _public(actor_seat, hand=11, my_seat=3):
    seats = [{"seat": my_seat, "user_id": ME}, {"seat": 5, "user_id": OTHER}]
    return {"seats": seats, "hand": {"id": hand, "actor_seat": actor_seat}}


def _update(version, *events, public=None, hand_events=()):
    groups = [{"kind": "table", "event": e} for e in events]
    if hand_events:
        groups.append({"kind": "hand", "hand": 11, "events": list(hand_events)})
    return read_update({"version": version, "events": groups, "public": public})


def _watching(actor_seat=5):
    watcher = Watcher(ME)
    watcher.absorb(_public(actor_seat))
    return watcher


def test_the_wire_text_is_the_public_keys_of_the_update_read_once_per_version():
    message = {"type": "update", "schema": VERSION, "version": 4, "events": [],
               "public": {"seats": []}, "__asgi_channel__": "x"}  # fmt: skip
    read = received(90_001, message)
    assert read.wire == json.dumps(
        {"type": "update", "version": 4, "events": [], "public": {"seats": []}},
        separators=(",", ":"),
    )
    assert received(90_001, dict(message)) is read
    assert read.update.version == 4


def test_a_spectator_is_never_due_a_private_frame():
    watcher = Watcher(None)
    dealt = {"type": "HoleCardsDealt", "version": 1, "seat": 3, "cards": None}
    assert watcher.due(_update(2, public=_public(3), hand_events=[dealt])) == Due.NOTHING


def test_my_new_hole_cards_make_a_private_frame_due_and_others_do_not():
    theirs = {"type": "HoleCardsDealt", "version": 1, "seat": 5, "cards": None}
    assert _watching().due(_update(2, public=_public(5), hand_events=[theirs])) == Due.NOTHING
    mine = {"type": "HoleCardsDealt", "version": 1, "seat": 3, "cards": None}
    assert _watching().due(_update(2, public=_public(5), hand_events=[mine])) == Due.FULL


def test_a_table_event_about_me_makes_it_due_but_my_chat_line_does_not():
    chat = {"type": "ChatPosted", "seat": 3, "user_id": ME, "username": "me", "text": "hi"}
    assert _watching().due(_update(2, chat, public=_public(5))) == Due.NOTHING
    sat_out = {"type": "PlayerSatOut", "seat": 3, "user_id": ME, "username": "me"}
    assert _watching().due(_update(2, sat_out, public=_public(5))) == Due.FULL
    theirs = {"type": "PlayerSatOut", "seat": 5, "user_id": OTHER, "username": "them"}
    assert _watching().due(_update(2, theirs, public=_public(5))) == Due.NOTHING
    paused = {"type": "TablePaused", "by": OTHER}
    assert _watching().due(_update(2, paused, public=_public(5))) == Due.NOTHING


def test_the_turn_coming_to_me_is_full_and_leaving_me_in_the_same_hand_ends_my_turn():
    assert _watching(actor_seat=5).due(_update(2, public=_public(3))) == Due.FULL
    assert _watching(actor_seat=3).due(_update(2, public=_public(5))) == Due.TURN_ENDED
    # The hand ended with my turn: a fresh view (the next hand's cards, or none).
    assert _watching(actor_seat=3).due(_update(2, public=_public(5, hand=12))) == Due.FULL
