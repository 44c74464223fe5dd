"""Export texts stored once per hand (``handhistory.exports.templates``,
``handhistory.stored_texts``) and the registry of derived hand products (``handhistory.derived``).

THE proof: for hands of every variant with antes, straddles and button blinds, side pots,
split pots, uncalled bets, rake, folds before showdown, mucks and shown cards, the text
rendered from a stored template is byte for byte the formatter's, for every format and
every viewer (each player, someone who did not play, staff).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from django.db import connection

import poker.dealer
from handhistory import derived, stored_texts
from handhistory.exports import FORMATS
from handhistory.exports.records import STAFF, HandRecord, Viewer, hand_records
from handhistory.exports.templates import build, render
from handhistory.models import DeriveMark, Hand, HandText
from poker.commands.seating import table_sit
from poker.engine.deck import FixedDeck
from poker.engine.events import (
    AntePosted,
    CardsMucked,
    CardsShown,
    PlayerFolded,
    PotAwarded,
    RakeTaken,
    UncalledBetReturned,
)
from tests.support.handhistory import (
    BUTTON_BLIND_TABLES,
    CHOP_DECK,
    STRADDLED,
    TABLES,
    Fold,
    SeededDecks,
    engine_hands,
    played_hands,
)
from tests.support.poker import actor_for, key, play_random_hands
from tests.support.threads import errors_in_threads

NOBODY = 987_654  # a user id that played none of the hands


def viewers(record: HandRecord) -> list[Viewer]:
    return [STAFF, Viewer(user_id=NOBODY)] + [Viewer(user_id=u) for u in record.player_ids]


def assert_templates_give_the_formatters_texts(records: Sequence[HandRecord]) -> None:
    for record in records:
        for name, fmt in FORMATS.items():
            template = build(record, fmt.hand)
            for viewer in viewers(record):
                assert render(template, viewer) == fmt.hand(record, viewer), (name, viewer)


@pytest.mark.parametrize("variant", sorted(STRADDLED))
def test_a_template_gives_every_viewer_the_formatters_text_on_straddled_side_pot_hands(variant):
    records = list(engine_hands(variant, hands=40, seed=17))
    assert any(len({e.pot for e in r.events if isinstance(e, PotAwarded)}) > 1 for r in records)
    assert any(isinstance(e, RakeTaken) for r in records for e in r.events)
    assert_templates_give_the_formatters_texts(records)


def test_a_template_is_one_text_with_slots_only_where_viewers_differ():
    record = next(engine_hands("NT", hands=1, seed=3))
    template = build(record, FORMATS["pokerstars"].hand)
    slots = [p for p in template["t"] if not isinstance(p, str)]
    # PokerStars text differs only by the "Dealt to" lines: one place in the text.
    assert len(slots) == 1
    spectator, staff, players = slots[0]
    assert spectator == ""
    assert staff.count("Dealt to") == len(record.seats)
    assert [p.count("Dealt to") for p in players] == [1] * len(record.seats)


@pytest.mark.django_db
def test_stored_texts_give_every_viewer_the_formatters_text_for_hands_of_every_kind(
    table, player, monkeypatch
):
    monkeypatch.setattr(poker.dealer, "FairDeck", SeededDecks(21))
    ids: list[int] = []
    for settings in TABLES.values():
        ids += played_hands(table, player, hands=6, seed=21, **settings)[2]  # random play
        ids += played_hands(table, player, hands=3, seed=None, **settings)[2]  # all in
    for settings in BUTTON_BLIND_TABLES.values():
        ids += played_hands(table, player, hands=6, seed=9, **settings)[2]
    monkeypatch.setattr(poker.dealer, "FairDeck", lambda **_: FixedDeck(CHOP_DECK))
    for variant in ("NT", "FT"):
        ids += played_hands(table, player, hands=3, seed=None, **TABLES[variant])[2]
    records = hand_records(ids)
    events = [e for r in records for e in r.events]
    for kind in (AntePosted, CardsMucked, CardsShown, PlayerFolded, RakeTaken,
                 UncalledBetReturned):  # fmt: skip
        assert any(isinstance(e, kind) for e in events), kind
    assert any(isinstance(e, PotAwarded) and e.pot > 0 for e in events)  # side pots
    assert any(isinstance(e, PotAwarded) and len(e.winners) > 1 for e in events)  # split
    assert {r.started.variant for r in records} == {"NT", "FT", "PO", "NS"}

    assert derived.derive_hands(ids) == len(records)
    assert HandText.objects.count() == len(records) * len(FORMATS)
    for record in records:
        for name, fmt in FORMATS.items():
            for viewer in viewers(record):
                text = stored_texts.hand_text(record.hand_id, fmt, viewer)
                assert text == fmt.hand(record, viewer), (record.hand_id, name, viewer)


@pytest.mark.django_db
def test_deriving_again_writes_nothing_and_stored_names_the_derived_hands(table, player):
    _, _, ids = played_hands(table, player, hands=4, seed=2, **TABLES["NT"])
    assert stored_texts.stored(ids) == set()
    assert derived.derive_hands(ids[:2]) == 2
    assert stored_texts.stored(ids) == set(ids[:2])
    rows = list(HandText.objects.order_by("pk").values_list("pk", "template"))
    assert derived.derive_hands(ids[:2]) == 0
    assert list(HandText.objects.order_by("pk").values_list("pk", "template")) == rows
    assert derived.derive_hands(ids) == len(ids) - 2
    assert stored_texts.stored(ids) == set(ids)


# Threads derive on connections of their own: the hands must be committed.
@pytest.mark.django_db(transaction=True)
def test_concurrent_derivations_of_the_same_hands_store_each_text_once(table, player):
    _, _, ids = played_hands(table, player, hands=6, seed=4, **TABLES["PO"])
    records = hand_records(ids)

    def derive(_: int) -> None:
        try:
            stored_texts.derive(records)  # no "stored?" check first: the race itself
        finally:
            connection.close()

    assert errors_in_threads(derive, threads=2) == []
    assert HandText.objects.count() == len(ids) * len(FORMATS)


@pytest.mark.django_db
def test_every_product_derives_from_records_loaded_once(table, player, monkeypatch):
    _, _, ids = played_hands(table, player, hands=3, seed=5, **TABLES["NT"])
    loads: list[list[int]] = []
    real = derived.hand_records

    def counted(hand_ids):
        loads.append(list(hand_ids))
        return real(hand_ids)

    seen: list[int] = []
    monkeypatch.setattr(derived, "hand_records", counted)
    monkeypatch.setitem(derived._PRODUCTS, "probe", derived.Product(
        name="probe",
        derive=lambda records: seen.extend(r.hand_id for r in records),
        stored=lambda hand_ids: set(seen) & set(hand_ids),
    ))  # fmt: skip
    assert derived.derive_hands(ids) == len(ids)
    assert loads == [sorted(ids)]
    assert seen == sorted(ids)
    assert stored_texts.stored(ids) == set(ids)


@pytest.mark.django_db
def test_the_backlog_derives_a_hand_that_finished_after_later_hands(table, player, monkeypatch):
    monkeypatch.setattr(derived, "ID_MARGIN", 0)  # only the pending ids bring it back

    slow, users = table(), [player(), player()]
    for user in users:  # the second sit deals a hand, left running
        table_sit(table_id=slow.pk, player_id=user.pk, buy_in=5_000, key=key(),
                  actor=actor_for(user))  # fmt: skip
    running = Hand.objects.get(table=slow, ended_at__isnull=True)
    _, _, later = played_hands(table, player, hands=4, seed=6, **TABLES["FT"])
    assert min(later) > running.pk

    derived.derive_backlog()
    assert stored_texts.stored(later) == set(later)
    assert running.pk in DeriveMark.objects.get(name=derived.BACKLOG).pending
    assert DeriveMark.objects.get(name=derived.BACKLOG).last_hand_id >= max(later)

    play_random_hands(slow, users, 1, Fold())  # the early hand ends now
    assert Hand.objects.get(pk=running.pk).ended_at is not None
    derived.derive_backlog()
    assert stored_texts.stored([running.pk]) == {running.pk}
    assert running.pk not in DeriveMark.objects.get(name=derived.BACKLOG).pending


@pytest.mark.django_db
def test_an_export_of_hands_without_stored_texts_derives_and_stores_them(table, player):
    _, users, ids = played_hands(table, player, hands=5, seed=8, **TABLES["NS"])
    derived.derive_hands(ids[:2])
    fmt = FORMATS["phh"]
    viewer = Viewer(user_id=users[0].pk)
    texts = list(
        stored_texts.iter_texts(Hand.objects.filter(pk__in=ids), fmt, viewer, chunk_size=2)
    )
    assert texts == [fmt.hand(r, viewer) for r in hand_records(ids)]
    assert stored_texts.stored(ids) == set(ids)
