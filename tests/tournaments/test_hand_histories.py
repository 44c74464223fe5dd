"""What hand-history tools read of a sit-and-go played to its end by bots (committed once
for the module): every hand's exports name its tournament, table and the level it was
dealt at, in chips; the Open Tournament Summary lists every finish and prize, validates
against its schema and the API's, is refused before the end, and says nothing the public
detail does not."""

from __future__ import annotations

import json
import re
import tomllib
from decimal import Decimal
from typing import Any

import jsonschema
import pytest
from pokerkit import HandHistory

from handhistory.exports import FORMATS
from handhistory.exports.records import Viewer, hand_records
from handhistory.models import Hand
from tests.support.emptying import module_data
from tests.support.exports import export
from tests.support.handhistory import pokerkit_stacks, settled
from tests.support.ohh import assert_rereads_as_played, load, valid
from tests.support.openapi import schema_errors
from tests.support.tournaments import HAND_LEVELS, played_sit_and_go, records
from tournaments.summaries import SCHEMA_PATH, tournament_hand_facts, tournament_summary

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def finished(django_db_setup: None, django_db_blocker: Any) -> Any:
    """A six-player sit-and-go played to its winner: (tournament, players, its hand ids)."""
    with django_db_blocker.unblock(), module_data():
        tournament, players = played_sit_and_go()
        hands = Hand.objects.filter(table__tournament_id=tournament.pk).order_by("pk")
        yield tournament, players, list(hands.values_list("pk", flat=True))


def ots_valid(document: dict[str, Any]) -> dict[str, Any]:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    return document["ots"]


def test_every_hand_names_its_tournament_table_and_the_level_the_clock_dealt_it_at(finished):
    tournament, _, ids = finished
    records_ = hand_records(ids)
    assert len(records_) == tournament.hands_played
    facts = tournament_hand_facts([tournament.pk])[tournament.pk]
    assert (facts.name, facts.buy_in, facts.fee, facts.starting_stack) == (
        "Sunday six",
        1_000,
        100,
        1_500,
    )
    assert facts.started_at == tournament.started_at
    for k, record in enumerate(records_):  # one table: the hands in the order they were dealt
        assert record.tournament is not None and record.tournament.facts == facts
        assert record.tournament.table_number == 1
        # Levels of three hands: the clock counts the hands finished before the deal.
        level = min(k // 3 + 1, len(HAND_LEVELS))
        assert record.tournament.level == level
        assert max(record.started.blinds_or_straddles) == HAND_LEVELS[level - 1]["big_blind"]
    assert records_[-1].tournament.level > 1


def test_each_exported_hand_reads_back_in_every_format_with_its_tournament(finished):
    tournament, _, ids = finished
    by_hand = {record.hand_id: record for record in hand_records(ids)}
    header = re.compile(
        rf"^PokerStars Hand #(\d+): Tournament #{tournament.pk}, €10\+€1 EUR Hold'em No Limit"
        r" - Level ([IVX]+) \((\d+)/(\d+)\) - "
    )
    for hand_id, record in by_hand.items():
        viewer = Viewer(user_id=record.player_ids[0])
        stars = FORMATS["pokerstars"].hand(record, viewer)
        match = header.match(stars)
        assert match and match[1] == str(hand_id), stars
        assert f"Table '{tournament.pk} 1' 6-max" in stars
        text = FORMATS["phh"].hand(record, viewer)
        hh = HandHistory.loads(text)
        assert (hh.event, hh.level) == ("Sunday six", record.tournament.level)
        assert hh.user_defined_fields["_tournament"] == tournament.pk
        # Chips, not money: pokerkit replays to the stacks the hand ended with.
        assert pokerkit_stacks(text) == settled(hand_id, record)
        hand = valid(load(FORMATS["ohh"].hand(record, viewer)))
        assert hand["tournament"] is True
        assert hand["tournament_info"]["tournament_number"] == str(tournament.pk)
        assert hand["big_blind_amount"] == max(record.started.blinds_or_straddles)
        assert_rereads_as_played(record, viewer)


def test_the_stored_texts_a_player_downloads_are_the_tournament_exports(finished, auth_client):
    tournament, players, ids = finished
    (record,) = hand_records(ids[-1:])
    client = auth_client(next(p for p in players if p.pk == record.player_ids[0]))
    for fmt in ("pokerstars", "phh", "ohh"):
        text = export(client, record.hand_id, fmt).content.decode()
        assert text == FORMATS[fmt].hand(record, Viewer(user_id=client.user.pk))
    assert (
        f"Tournament #{tournament.pk}, "
        in export(client, record.hand_id, "pokerstars").content.decode()
    )
    assert tomllib.loads(export(client, record.hand_id, "phh").content.decode())["level"] >= 1


def test_the_summary_of_the_finished_sit_and_go_lists_every_finish_and_validates(finished):
    tournament, players, _ = finished
    entries = {e.player_id: e for e in tournament.entries.all()}

    summary = ots_valid(tournament_summary(tournament_id=tournament.pk, viewer_id=players[0].pk))

    assert summary["tournament_number"] == str(tournament.pk)
    assert summary["tournament_name"] == "Sunday six"
    assert (summary["currency"], summary["type"], summary["flags"]) == ("EUR", "STT", ["SNG"])
    assert (summary["buyin_amount"], summary["fee_amount"], summary["bounty_fee_amount"]) == (
        10.0,
        1.0,
        0.0,
    )
    assert (summary["initial_stack"], summary["player_count"]) == (1_500, 6)
    assert summary["prize_pool"] == 60.0  # six buy-ins of 10.00: the pool, all paid
    assert summary["start_date_utc"] == f"{tournament.started_at:%Y-%m-%dT%H:%M:%S}Z"
    assert summary["end_date_utc"] == f"{tournament.finished_at:%Y-%m-%dT%H:%M:%S}Z"
    assert summary["hero_player_name"] == players[0].username
    finishes = summary["tournament_finishes_and_winnings"]
    assert sorted((f["player_name"], f["finish_position"], f["prize"]) for f in finishes) == sorted(
        (p.username, entries[p.pk].place, entries[p.pk].prize / 100) for p in players
    )
    assert [f["finish_position"] for f in finishes] == sorted(
        f["finish_position"] for f in finishes
    )
    assert not any(f["still_playing"] for f in finishes)
    assert sum(Decimal(str(f["prize"])) for f in finishes) == 60


def test_the_summary_over_rest_matches_its_openapi_schema(finished, auth_client, api_client):
    tournament, players, _ = finished
    url = f"/api/v1/tournaments/{tournament.pk}/summary/"

    mine = auth_client(players[2]).get(url)
    anonymous = api_client.get(url)

    assert mine.status_code == anonymous.status_code == 200
    assert schema_errors(mine.json(), "TournamentSummary") == []
    assert schema_errors(anonymous.json(), "TournamentSummary") == []
    assert mine.json()["ots"]["hero_player_name"] == players[2].username


def test_the_summary_says_only_what_the_public_detail_shows_and_the_readers_own_name(
    finished, auth_client, api_client, make_user
):
    tournament, players, _ = finished
    url = f"/api/v1/tournaments/{tournament.pk}/summary/"
    public = api_client.get(f"/api/v1/tournaments/{tournament.pk}/").json()

    anonymous = api_client.get(url).json()["ots"]
    stranger = auth_client(make_user()).get(url).json()["ots"]
    player = auth_client(players[4]).get(url).json()["ots"]

    # Nobody but the player is named the hero, and a reader who did not play is nobody's.
    assert "hero_player_name" not in anonymous and "hero_player_name" not in stranger
    assert {k: v for k, v in player.items() if k != "hero_player_name"} == anonymous == stranger
    # Each finish is a public standing: a name, the place and the prize, nothing else.
    standings = {(s["username"], s["place"], s["prize"]) for s in public["standings"]}
    finishes = anonymous["tournament_finishes_and_winnings"]
    assert {
        (f["player_name"], f["finish_position"], round(f["prize"] * 100)) for f in finishes
    } == standings
    assert {key for f in finishes for key in f} == {
        "player_name",
        "finish_position",
        "still_playing",
        "prize",
    }
    # The rest is the tournament's public structure, start and end.
    assert set(anonymous) == {
        "spec_version", "site_name", "network_name", "internal_version", "tournament_number",
        "tournament_name", "start_date_utc", "end_date_utc", "currency", "buyin_amount",
        "fee_amount", "bounty_fee_amount", "initial_stack", "type", "flags", "speed",
        "prize_pool", "player_count", "tournament_finishes_and_winnings",
    }  # fmt: skip


def test_a_summary_is_refused_for_an_unknown_tournament_and_one_not_finished(
    finished, api_client, make_tournament
):
    registering = make_tournament()
    before = records()

    unknown = api_client.get("/api/v1/tournaments/999999999/summary/")
    early = api_client.get(f"/api/v1/tournaments/{registering.pk}/summary/")

    assert unknown.status_code == 404 and unknown.json()["code"] == "tournament_not_found"
    assert early.status_code == 409
    assert early.json()["code"] == "tournament_not_finished"
    assert early.json()["extra"] == {"tournament": registering.pk, "status": "registering"}
    assert records() == before
