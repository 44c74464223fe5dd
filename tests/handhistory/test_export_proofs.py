"""The format proofs the other export modules leave open: straddles and button blinds,
chopped pots, our own replay_phh --check for every variant, and the privacy of a folded
hand in every format.

What test_export_phh.py and test_export_pokerstars.py already prove (kept there):
pokerkit replays every PHH export of random play to the settled stacks for NT, FT, PO and
NS (antes on NT, PO and NS; rake on NT, FT and PO; uncalled bets), and all-in hands with
side pots for NT, NS and PO; pokerkit's PokerStars reader parses random NLHE hands and
all-in side pots to the settled stacks; FL and PLO PokerStars text match golden files;
replay_phh --check passes on NT exports; the hand API keeps a folded hand private in PHH
and PokerStars text.
"""

from __future__ import annotations

import io
import json
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pokerkit import HandHistory

import poker.dealer
from handhistory.exports import FORMATS, phh
from handhistory.exports.records import STAFF, HandRecord, Viewer, hand_records
from poker.engine import phh_cli
from poker.engine.cards import format_card
from poker.engine.config import HandConfig
from poker.engine.deck import FixedDeck
from poker.engine.events import (
    BlindPosted,
    CardsShown,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    PlayerFolded,
    PotAwarded,
)
from poker.engine.game import act, start_hand
from tests.support.exports import export, secrets_of, visible_cards
from tests.support.handhistory import (
    BUTTON_BLIND_TABLES,
    CHOP_DECK,
    STRADDLED,
    TABLES,
    assert_pokerkit_replays,
    engine_hands,
    played_hands,
    pokerkit_stacks,
    rake_back,
    settled,
    split_raked,
)
from tests.support.ohh import assert_rereads_as_played


def hole_cards(record: HandRecord) -> dict[int, set[str]]:
    return {
        e.player: {format_card(c) for c in e.cards}
        for e in record.events
        if isinstance(e, HoleCardsDealt)
    }


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_players_export_never_holds_a_folded_players_cards_nor_the_seed(table, player, fmt):
    records: list[HandRecord] = []
    for variant in ("NT", "PO"):
        _, _, ids = played_hands(table, player, hands=15, seed=8, **TABLES[variant])
        records += hand_records(ids)
    folds = showdowns = 0
    for record in records:
        cards = hole_cards(record)
        folded = {e.player for e in record.events if isinstance(e, PlayerFolded)}
        shown = {e.player for e in record.events if isinstance(e, CardsShown)}
        folds += bool(folded)
        showdowns += bool(shown)
        for me, user in enumerate(record.player_ids):
            text = FORMATS[fmt].hand(record, Viewer(user_id=user))
            seen = visible_cards(fmt, text)
            assert cards[me] <= seen, text  # the reader does find cards
            for other in folded - {me}:
                assert not cards[other] & seen, text
            for other in shown:
                assert cards[other] <= seen, text
            if folded:
                assert not any(secret in text for secret in secrets_of(record)), text
        everything = visible_cards(fmt, FORMATS[fmt].hand(record, STAFF))
        assert set().union(*cards.values()) <= everything
    assert folds >= 5 and showdowns >= 1


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_hand_api_keeps_a_folded_players_cards_and_the_seed_private_in_every_format(
    folded_hand,
    fmt,
):
    hidden = set(folded_hand["cards"])
    for client in folded_hand["others"]:
        response = export(client, folded_hand["hand"], fmt)
        assert response.status_code == 200
        text = response.content.decode()
        assert not hidden & visible_cards(fmt, text)
        assert folded_hand["seed"] not in text
    own = export(folded_hand["folder"], folded_hand["hand"], fmt).content.decode()
    assert hidden <= visible_cards(fmt, own)


# Chopped pots through the table service: every hand deals low hole cards and a Broadway
# board (no flush possible), so every showdown splits between the players still in
# (CHOP_DECK, tests/support/handhistory.py).


@pytest.fixture
def chopped_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    # The service takes no deck source; a fixed deck stands in for the shuffle only.
    monkeypatch.setattr(poker.dealer, "FairDeck", lambda **_: FixedDeck(CHOP_DECK))


def chopped(records: list[HandRecord]) -> list[HandRecord]:
    return [
        r
        for r in records
        if any(isinstance(e, PotAwarded) and len(e.winners) > 1 for e in r.events)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["NT", "FT"])
def test_chopped_pots_replay_in_pokerkit_and_reread_in_ohh_to_the_settled_stacks(
    table, player, chopped_boards, variant
):
    _, users, ids = played_hands(table, player, hands=3, seed=None, **TABLES[variant])
    records = hand_records(ids)
    split = chopped(records)
    assert split and any(len(r.seats) == 3 for r in split)
    for record in records:
        for viewer in (STAFF, Viewer(user_id=users[0].pk)):
            assert_pokerkit_replays(phh.hand_phh(record, viewer), record)
            assert_rereads_as_played(record, viewer)


@pytest.mark.django_db
def test_chopped_nlhe_pots_in_pokerstars_text_parse_in_pokerkit_to_the_settled_stacks(
    table, player, chopped_boards
):
    # pokerkit's reader ignores antes and rake: a table with neither.
    _, users, ids = played_hands(table, player, hands=3, seed=None, variant="NT")
    records = hand_records(ids)
    assert chopped(records)
    text = FORMATS["pokerstars"].many(records, Viewer(user_id=users[2].pk))
    hands = list(HandHistory.from_pokerstars(text, parse_value=int, error_status=True))
    assert [h.hand for h in hands] == [r.hand_id for r in records]
    for hh, record in zip(hands, records, strict=True):
        stacks = dict(zip(hh.players, list(hh)[-1].stacks, strict=True))
        assert stacks == dict(zip(record.usernames, settled(record.hand_id, record), strict=True))


# A button blind is the third forced bet the tables offer (short deck's usual structure,
# or a bigger blind on the button); PHH writes it in blinds_or_straddles like a straddle
# (BUTTON_BLIND_TABLES, tests/support/handhistory.py).


@pytest.mark.django_db
@pytest.mark.parametrize("variant", sorted(BUTTON_BLIND_TABLES))
def test_button_blind_hands_replay_in_pokerkit_and_reread_in_ohh_to_the_settled_stacks(
    table, player, variant
):
    # Random play busts players fast: three tables give enough three-handed hands.
    records: list[HandRecord] = []
    for seed in (9, 10, 11):
        _, _, ids = played_hands(table, player, hands=15, seed=seed, **BUTTON_BLIND_TABLES[variant])
        records += hand_records(ids)
    three = [r for r in records if len(r.seats) == 3]
    assert len(three) >= 5
    for record in three:
        button = len(record.seats) - 1
        assert any(isinstance(e, BlindPosted) and e.player == button for e in record.events)
        ohh = json.loads(FORMATS["ohh"].hand(record, STAFF))["ohh"]
        assert "Post Extra Blind" in {a["action"] for a in ohh["rounds"][0]["actions"]}
    for record in records:
        for viewer in (STAFF, Viewer(user_id=record.player_ids[0])):
            assert_pokerkit_replays(phh.hand_phh(record, viewer), record)
            assert_rereads_as_played(record, viewer)


# Straddles: the table service offers none, so these hands are played by the engine itself
# (random legal decisions from a seeded fair deck, engine_hands in tests/support/handhistory.py)
# and exported from their events.


def final_stacks(record: HandRecord) -> list[int]:
    return list(next(e for e in record.events if isinstance(e, HandEnded)).final_stacks)


@pytest.mark.parametrize("variant", sorted(STRADDLED))
def test_straddled_hands_replay_in_pokerkit_and_reread_in_ohh_to_the_final_stacks(variant):
    records = list(engine_hands(variant, hands=60, seed=17))
    assert any(len({e.pot for e in r.events if isinstance(e, PotAwarded)}) > 1 for r in records)
    for record in records:
        assert record.started.blinds_or_straddles == STRADDLED[variant]["blinds_or_straddles"]
        for viewer in (STAFF, Viewer(user_id=22)):
            text = phh.hand_phh(record, viewer)
            data = tomllib.loads(text)
            assert data["finishing_stacks"] == final_stacks(record)
            mine, theirs = rake_back(record, final_stacks(record)), pokerkit_stacks(text)
            split = split_raked(record)
            assert [v for p, v in enumerate(theirs) if p not in split] == [
                v for p, v in enumerate(mine) if p not in split
            ], text
            assert sum(theirs) == sum(final_stacks(record)) + data["_rake"], text
            theirs_ohh = assert_rereads_as_played(record, viewer)
            assert list(theirs_ohh["final"].values()) == final_stacks(record)
        ohh = json.loads(FORMATS["ohh"].hand(record, STAFF))["ohh"]
        posts = [a["action"] for a in ohh["rounds"][0]["actions"] if a["action"].startswith("P")]
        assert "Straddle" in {a["action"] for a in ohh["rounds"][0]["actions"]}, posts
        stars = FORMATS["pokerstars"].hand(record, STAFF)
        assert "posts straddle" in stars


def write_phh_files(folder: Path, records: list[HandRecord], viewer: Viewer) -> None:
    folder.mkdir()
    for record in records:
        (folder / f"{record.hand_id}.phh").write_text(phh.hand_phh(record, viewer))


def assert_replay_phh_checks(folder: Path, count: int) -> None:
    out = io.StringIO()
    status = phh_cli.main(["--check", str(folder)], out=out, err=out)
    assert status == 0, out.getvalue()
    assert f"{count} hands: {count} matched" in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_our_replay_phh_check_passes_on_exports_of_every_variant(table, player, tmp_path, variant):
    _, users, ids = played_hands(table, player, hands=12, seed=13, **TABLES[variant])
    _, _, shoved = played_hands(table, player, hands=3, seed=None, **TABLES[variant])
    records = hand_records(ids + shoved)
    for viewer, folder in ((STAFF, "staff"), (Viewer(user_id=users[0].pk), "player")):
        write_phh_files(tmp_path / folder, records, viewer)
    assert_replay_phh_checks(tmp_path, 2 * len(records))


@pytest.mark.django_db
def test_our_replay_phh_check_passes_on_chopped_pots_and_button_blinds(
    table, player, tmp_path, monkeypatch
):
    _, _, blinds = played_hands(table, player, hands=8, seed=3, **BUTTON_BLIND_TABLES["NS"])
    monkeypatch.setattr(poker.dealer, "FairDeck", lambda **_: FixedDeck(CHOP_DECK))
    _, users, chops = played_hands(table, player, hands=3, seed=None, **TABLES["NT"])
    records = hand_records(blinds + chops)
    assert chopped(records)
    write_phh_files(tmp_path / "hands", records, Viewer(user_id=users[0].pk))
    assert_replay_phh_checks(tmp_path, len(records))


@pytest.mark.parametrize("variant", sorted(STRADDLED))
def test_our_replay_phh_check_passes_on_straddled_hands(tmp_path, variant):
    records = list(engine_hands(variant, hands=20, seed=5))
    write_phh_files(tmp_path / "hands", records, Viewer(user_id=23))
    assert_replay_phh_checks(tmp_path, len(records))


def test_a_hand_started_by_a_fixed_deck_keeps_the_deck_out_of_every_players_export():
    # The chopped-pot tables deal from a FixedDeck, whose order is as secret as a seed.
    config = HandConfig(
        variant="NT", starting_stacks=(1_000, 1_000, 1_000), blinds_or_straddles=(50, 100, 0),
        min_bet=100,
    )  # fmt: skip
    state, events = start_hand(config, FixedDeck(CHOP_DECK))
    state, more = act(state, 2, "fold", None)
    events += more
    state, more = act(state, 0, "fold", None)
    events += more
    assert state.is_over
    started = events[0]
    assert isinstance(started, HandStarted)
    assert started.fixed_deck[: len(CHOP_DECK)] == CHOP_DECK
    record = HandRecord(
        hand_id=1, number=1, table_id=1, table_name="T", max_seats=6, currency="CHIPS",
        seats=(1, 2, 3), player_ids=(21, 22, 23), usernames=("ann", "bob", "cy"),
        started_at=datetime(2026, 11, 24, tzinfo=UTC), events=tuple(events),
    )  # fmt: skip
    cards = hole_cards(record)
    for fmt in sorted(FORMATS):
        for me in range(3):
            text = FORMATS[fmt].hand(record, Viewer(user_id=21 + me))
            # Nothing was shown and no board dealt: a player sees their own cards only.
            assert visible_cards(fmt, text) == cards[me], text
