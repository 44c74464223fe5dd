"""Cash hands' exports are the same bytes as before tournament hands got their own
header and fields (stored texts of cash hands stay valid: no migration deletes them).

The digests were taken with the exporters of main at 2beb888, before the change, over
every format and view (staff, each player, a spectator) of hands of every variant with
straddles, antes, side pots and rake, and of the golden FL and PLO hands."""

from __future__ import annotations

import hashlib

import pytest

from handhistory.exports import FORMATS
from handhistory.exports.records import STAFF, Viewer
from tests.support.handhistory import FL, PLO, engine_hands, record_of

#: sha256 of every export of the hands below, as main wrote them (see the docstring).
DIGESTS = {
    "phh": "22c2698e2228bdbe2cc9d49d15b952b69e86380bd1798d950dda7634063d19f4",
    "pokerstars": "133e2f14bd18c8f99fd2f8299010a183dee58dceee88b8fb5a9c7c1acd395931",
    "ohh": "23dc1499609fd0d327a130aea751b4c3b3ca8e8959fb2b3e888b22ee25fb47e1",
}


def cash_records():
    yield record_of(FL)
    yield record_of(PLO)
    for variant in ("NT", "PO", "NS"):
        yield from engine_hands(variant, hands=8, seed=29)


def digest(fmt: str) -> str:
    out = hashlib.sha256()
    for record in cash_records():
        for viewer in (STAFF, Viewer(user_id=None), *map(Viewer, record.player_ids)):
            out.update(FORMATS[fmt].hand(record, viewer).encode())
    return out.hexdigest()


@pytest.mark.parametrize("fmt", sorted(DIGESTS))
def test_a_cash_hands_export_is_the_bytes_it_was_before_tournament_hands(fmt):
    assert digest(fmt) == DIGESTS[fmt]
