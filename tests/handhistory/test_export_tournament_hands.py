"""A tournament hand in every export: PokerStars' tournament header as trackers parse it,
PHH's tournament fields in pokerkit, OHH's ``tournament_info`` against the schema; its
amounts in tournament chips. The formatters are pure: the hands are played by the engine
from PHH scripts (hands played at a real sit-and-go: tests/tournaments/test_hand_histories.py)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from decimal import Decimal

import jsonschema
import pytest
from pokerkit import HandHistory

from handhistory.exports import ohh, phh, pokerstars
from handhistory.exports.records import STAFF, Viewer
from poker.engine.events import HandEnded
from tests.support.handhistory import SIT_AND_GO, pokerkit_stacks, tournament_record
from tests.support.ohh import assert_rereads_as_played, load, valid, validator

#: Level 3 of the sit-and-go (blinds 50/100) with antes: the short stack is all in.
HAND = """
variant = "NT"
antes = [10, 10, 10]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1500, 2200, 800]
actions = ["d dh p1 AsKd", "d dh p2 7c2d", "d dh p3 QhQd",
  "p3 cbr 300", "p1 cbr 1490", "p2 f", "p3 cc",
  "p1 sm AsKd", "p3 sm QhQd", "d db 8c4d2s", "d db Js", "d db 3h"]
"""

#: A tracker's reading of the header (after fpdb's PokerStarsToFpdb ``re_game_info``):
#: the buy-in is the prize part, then the fee, or the prize part, the bounty and the fee.
HEADER = re.compile(
    r"^PokerStars Hand #(?P<hand>\d+): Tournament #(?P<tournament>\d+), "
    r"(?:(?P<prize>[$€£]?[\d.]+)\+(?P<second>[$€£]?[\d.]+)(?:\+(?P<third>[$€£]?[\d.]+))?"
    r"(?: (?P<iso>[A-Z]{3}))?|(?P<freeroll>Freeroll)) "
    r"(?P<game>Hold'em|Omaha|6\+ Hold'em) (?P<limit>No Limit|Pot Limit|Limit) - "
    r"(?:Level (?P<level>[IVXLC]+) )?\((?P<sb>\d+)/(?P<bb>\d+)\) - "
    r"(?P<time>\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) UTC \[[^\]]+ ET\]$"
)
TABLE = re.compile(
    r"^Table '(?P<tournament>\d+) (?P<table>\d+)' (?P<max>\d+)-max Seat #(?P<button>\d+) "
    r"is the button$"
)
SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+) \((?P<chips>\d+) in chips\)$")
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
TOURNAMENT_FIELDS = (
    "_tournament",
    "_tournament_table",
    "_buy_in",
    "_bounty",
    "_fee",
    "_buy_in_currency",
    "_starting_stack",
)


def from_roman(text: str) -> int:
    values = [ROMAN[c] for c in text]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))


def header(text: str) -> dict[str, str | None]:
    match = HEADER.match(text.splitlines()[0])
    assert match, text
    return match.groupdict()


def test_a_tournament_hands_pokerstars_header_reads_back_as_trackers_read_it():
    record = tournament_record(HAND)
    text = pokerstars.hand_text(record, Viewer(user_id=11))
    lines = text.splitlines()

    head = header(text)
    assert (head["hand"], head["tournament"]) == ("4321", "45")
    assert (head["prize"], head["second"], head["third"], head["iso"]) == ("€10", "€1", None, "EUR")
    assert (head["game"], head["limit"]) == ("Hold'em", "No Limit")
    assert from_roman(head["level"]) == 3 and (head["sb"], head["bb"]) == ("50", "100")
    assert head["time"] == "2025/03/14 19:15:07"
    table = TABLE.match(lines[1])
    assert table and table.groupdict() == {
        "tournament": "45",
        "table": "1",
        "max": "6",
        "button": "5",
    }
    # Stacks and every amount in chips: no currency symbol anywhere below the header.
    seats = [SEAT.match(line) for line in lines[2:5]]
    assert [(m["seat"], m["name"], m["chips"]) for m in seats if m] == [
        ("2", "ann", "1500"),
        ("4", "bob", "2200"),
        ("5", "cy", "800"),
    ]
    assert "ann: posts the ante 10" in lines and "bob: posts big blind 100" in lines
    assert not re.search(r"[$€£]|EUR|CHIPS", "\n".join(lines[1:]))


@pytest.mark.parametrize(
    ("money", "written"),
    [
        ({"bounty": 200}, ("€8", "€2", "€1", "EUR")),
        ({"currency": "USD", "buy_in": 330, "fee": 30}, ("$3.30", "$0.30", None, "USD")),
        ({"currency": "CHIPS", "buy_in": 100, "fee": 10}, ("100", "10", None, None)),
    ],
)
def test_the_buy_in_is_the_prize_part_the_bounty_and_the_fee_as_pokerstars_writes_them(
    money, written
):
    facts = replace(SIT_AND_GO, **money)
    head = header(pokerstars.hand_text(tournament_record(HAND, facts), STAFF))
    assert (head["prize"], head["second"], head["third"], head["iso"]) == written


def test_a_freeroll_is_written_freeroll():
    facts = replace(SIT_AND_GO, buy_in=0, fee=0)
    head = header(pokerstars.hand_text(tournament_record(HAND, facts), STAFF))
    assert head["freeroll"] == "Freeroll" and head["prize"] is None


@pytest.mark.parametrize(
    ("number", "numeral"),
    [(1, "I"), (3, "III"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (49, "XLIX")],
)
def test_levels_are_numbered_in_roman_numerals(number, numeral):
    assert pokerstars.roman(number) == numeral
    assert from_roman(numeral) == number


def test_a_hand_whose_big_blind_is_no_levels_is_written_without_a_level():
    facts = replace(SIT_AND_GO, big_blinds=(20, 40, 80))
    record = tournament_record(HAND, facts)
    assert record.tournament is not None and record.tournament.level is None

    assert header(pokerstars.hand_text(record, STAFF))["level"] is None
    assert "level" not in tomllib.loads(phh.hand_phh(record, STAFF))


def test_a_tournament_hands_phh_loads_in_pokerkit_with_its_tournament_fields():
    record = tournament_record(HAND, table=2)
    text = phh.hand_phh(record, Viewer(user_id=12))

    hh = HandHistory.loads(text)
    assert (hh.event, hh.level, hh.currency) == ("Sunday six", 3, None)
    assert hh.table == "Sunday six #2"
    fields = hh.user_defined_fields
    assert {k: fields[k] for k in TOURNAMENT_FIELDS} == {
        "_tournament": 45,
        "_tournament_table": 2,
        "_buy_in": 1_000,
        "_bounty": 0,
        "_fee": 100,
        "_buy_in_currency": "EUR",
        "_starting_stack": 1_500,
    }
    assert (fields["_amounts"], fields["_rake"]) == ("tournament chips", 0)
    ended = next(e for e in record.events if isinstance(e, HandEnded))
    assert pokerkit_stacks(text) == list(ended.final_stacks)


def test_a_tournament_hands_ohh_has_its_tournament_info_and_chips_and_validates():
    record = tournament_record(HAND)
    for viewer in (STAFF, Viewer(user_id=13)):
        hand = valid(load(ohh.hand_ohh(record, viewer)))
        assert hand["tournament"] is True
        assert hand["tournament_info"] == {
            "tournament_number": "45",
            "name": "Sunday six",
            "start_date_utc": "2026-11-29T18:00:04Z",
            "currency": "EUR",
            "buyin_amount": Decimal("10.0"),
            "fee_amount": Decimal("1.0"),
            "bounty_fee_amount": Decimal("0.0"),
            "initial_stack": 1500,
            "type": "STT",
            "flags": ["SNG"],
            "speed": {"type": "Turbo", "round_time": 360},
        }
        # The level it was dealt at, in whole chips.
        assert (hand["currency"], hand["small_blind_amount"], hand["big_blind_amount"]) == (
            "CHIPS",
            50,
            100,
        )
        assert (hand["ante_amount"], hand["bet_limit"]["bet_type"]) == (10, "NL")
        assert [p["starting_stack"] for p in hand["players"]] == [1500, 2200, 800]
        assert_rereads_as_played(record, viewer)


def test_the_ohh_info_of_a_bounty_tournament_of_several_tables_says_so():
    facts = replace(SIT_AND_GO, bounty=200, multi_table=True, sit_and_go=False, level_minutes=None)
    info = valid(load(ohh.hand_ohh(tournament_record(HAND, facts), STAFF)))["tournament_info"]
    assert (info["buyin_amount"], info["bounty_fee_amount"], info["fee_amount"]) == (
        Decimal("8.0"),
        Decimal("2.0"),
        Decimal("1.0"),
    )
    assert (info["type"], info["flags"]) == ("MTT", ["Bounty"])
    # Levels counted in hands have no length.
    assert info["speed"] == {"type": "Normal", "round_time": 0}


@pytest.mark.parametrize(
    ("minutes", "speed"),
    [(20, "Normal"), (10, "Normal"), (8, "Semi-Turbo"), (5, "Turbo"), (3, "Super-Turbo"),
     (2, "Hyper-Turbo"), (1, "Ultra-Turbo")],
)  # fmt: skip
def test_the_speed_is_named_by_the_minutes_a_level_lasts(minutes, speed):
    assert ohh.speed(replace(SIT_AND_GO, level_minutes=minutes)) == {
        "type": speed,
        "round_time": minutes * 60,
    }


def test_the_schema_refuses_a_tournament_hand_without_its_tournament_info():
    document = load(ohh.hand_ohh(tournament_record(HAND), STAFF))
    del document["ohh"]["tournament_info"]
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(document)
    document["ohh"]["tournament_info"] = {"tournament_number": "45"}
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(document)
