"""PokerStars text exports of hands played through the real table service, read back by
pokerkit's PokerStars parser; FL and PLO against hand-written golden files."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pokerkit import HandHistory

from handhistory.exports import FORMATS, pokerstars
from handhistory.exports.records import STAFF, Viewer, hand_records
from tests.support.handhistory import played_hands, settled, usd_table_played

pytestmark = pytest.mark.django_db


def cents(text: str) -> int:
    return int(Decimal(text) * 100)


def test_every_exported_pokerstars_nlhe_hand_parses_in_pokerkit_to_the_settled_stacks(
    table, make_user
):
    _, users, ids = usd_table_played(table, make_user, hands=30, seed=11)
    records = hand_records(ids)
    assert len(records) >= 10
    for viewer in (STAFF, Viewer(user_id=users[0].pk)):
        text = FORMATS["pokerstars"].many(records, viewer)
        parsed = HandHistory.from_pokerstars(text, parse_value=cents, error_status=True)
        hands = []
        while True:
            try:
                hands.append(next(parsed))
            except StopIteration as stop:
                assert stop.value == len(records)
                break
        assert [h.hand for h in hands] == [r.hand_id for r in records]
        for hh, record in zip(hands, records, strict=True):
            stacks = dict(zip(hh.players, list(hh)[-1].stacks, strict=True))
            mine = dict(zip(record.usernames, settled(record.hand_id, record), strict=True))
            assert stacks == mine, pokerstars.hand_text(record, viewer)


def test_all_in_side_pots_in_pokerstars_text_parse_in_pokerkit_to_the_settled_stacks(table, player):
    _, users, ids = played_hands(table, player, hands=3, seed=None, variant="NT")
    records = hand_records(ids)
    text = FORMATS["pokerstars"].many(records, Viewer(user_id=users[2].pk))
    assert " Main pot " in text and " Side pot-1 " in text and "from side pot-1" in text
    hands = list(HandHistory.from_pokerstars(text, parse_value=int, error_status=True))
    assert [h.hand for h in hands] == [r.hand_id for r in records]
    for hh, record in zip(hands, records, strict=True):
        stacks = dict(zip(hh.players, list(hh)[-1].stacks, strict=True))
        assert stacks == dict(zip(record.usernames, settled(record.hand_id, record), strict=True))
