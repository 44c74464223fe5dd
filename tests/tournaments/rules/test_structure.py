"""The blind structure: levels and breaks, their validation, the templates and ONE clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tournaments.rules.errors import TournamentRuleError
from tournaments.rules.structure import (
    TEMPLATES,
    Break,
    Level,
    Structure,
    level_at,
    load_template,
    structure_from_data,
)

T0 = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)


def timed(*blinds: tuple[int, int], minutes: int = 10) -> tuple[Level, ...]:
    return tuple(Level(small_blind=s, big_blind=b, minutes=minutes) for s, b in blinds)


def refused(code: str, **kwargs: object) -> TournamentRuleError:
    with pytest.raises(TournamentRuleError) as caught:
        Structure(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == code
    return caught.value


def test_levels_whose_big_blind_does_not_rise_are_invalid_levels() -> None:
    err = refused("invalid_levels", levels=timed((10, 20), (10, 20)))
    assert "level 2" in err.message


def test_a_big_blind_below_the_small_blind_is_invalid_levels() -> None:
    refused("invalid_levels", levels=timed((20, 10)))


def test_a_small_blind_that_falls_is_invalid_levels() -> None:
    refused("invalid_levels", levels=timed((20, 40), (15, 60)))


def test_a_level_needs_exactly_one_of_minutes_and_hands() -> None:
    refused("invalid_levels", levels=(Level(small_blind=1, big_blind=2),))
    refused("invalid_levels", levels=(Level(small_blind=1, big_blind=2, minutes=5, hands=5),))
    refused("invalid_levels", levels=(Level(small_blind=1, big_blind=2, minutes=0),))


def test_levels_are_all_timed_or_all_counted_in_hands() -> None:
    refused(
        "invalid_levels",
        levels=(
            Level(small_blind=1, big_blind=2, minutes=5),
            Level(small_blind=2, big_blind=4, hands=5),
        ),
    )


def test_no_levels_is_invalid_levels() -> None:
    refused("invalid_levels", levels=())


def test_a_negative_ante_or_a_big_blind_ante_without_an_amount_is_invalid_levels() -> None:
    refused("invalid_levels", levels=(Level(small_blind=1, big_blind=2, ante=-1, minutes=5),))
    refused(
        "invalid_levels",
        levels=(Level(small_blind=1, big_blind=2, big_blind_ante=True, minutes=5),),
    )


def test_a_break_after_a_missing_or_the_last_level_or_twice_is_invalid_breaks() -> None:
    levels = timed((10, 20), (20, 40))
    refused("invalid_breaks", levels=levels, breaks=(Break(after_level=3, minutes=5),))
    refused("invalid_breaks", levels=levels, breaks=(Break(after_level=2, minutes=5),))
    refused("invalid_breaks", levels=levels, breaks=(Break(after_level=1, minutes=0),))
    refused(
        "invalid_breaks",
        levels=timed((10, 20), (20, 40), (30, 60)),
        breaks=(Break(after_level=1, minutes=5), Break(after_level=1, minutes=5)),
    )


def test_breaks_need_a_timed_structure() -> None:
    levels = tuple(Level(small_blind=s, big_blind=2 * s, hands=10) for s in (10, 20))
    refused("invalid_breaks", levels=levels, breaks=(Break(after_level=1, minutes=5),))


def test_the_three_templates_ship_and_are_valid() -> None:
    assert TEMPLATES == ("turbo", "regular", "deep")
    turbo, regular, deep = (load_template(name) for name in TEMPLATES)
    assert turbo.levels[0].minutes < regular.levels[0].minutes <= deep.levels[0].minutes
    assert len(deep.levels) >= len(regular.levels)
    assert regular.breaks


def test_an_unknown_template_is_refused() -> None:
    with pytest.raises(TournamentRuleError) as caught:
        load_template("hyper")
    assert caught.value.code == "unknown_template"


def test_a_structure_is_read_from_plain_data_as_the_api_sends_it() -> None:
    structure = structure_from_data(
        {
            "levels": [
                {"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 10},
                {
                    "small_blind": 20,
                    "big_blind": 40,
                    "ante": 40,
                    "big_blind_ante": True,
                    "minutes": 10,
                },
            ],
            "breaks": [],
        }
    )
    assert structure.levels[1] == Level(
        small_blind=20, big_blind=40, ante=40, big_blind_ante=True, minutes=10
    )


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"levels": "fast"},
        {"levels": [{"small_blind": 10, "big_blind": 20, "minutes": 10, "colour": "red"}]},
        {"levels": [{"small_blind": "10", "big_blind": 20, "minutes": 10}]},
        {"levels": [{"small_blind": True, "big_blind": 20, "minutes": 10}]},
        {"levels": [{"small_blind": 10, "big_blind": 20, "minutes": 10}], "breaks": [{}]},
    ],
)
def test_malformed_structure_data_is_invalid_structure(data: dict[str, object]) -> None:
    with pytest.raises(TournamentRuleError) as caught:
        structure_from_data(data)
    assert caught.value.code in ("invalid_structure", "invalid_levels", "invalid_breaks")


STRUCTURE = Structure(
    levels=timed((10, 20), (20, 40), (30, 60), (50, 100)),
    breaks=(Break(after_level=2, minutes=5),),
)


def test_the_clock_gives_the_level_and_when_it_ends() -> None:
    now = level_at(STRUCTURE, started_at=T0, now=T0 + timedelta(minutes=3))
    assert (now.number, now.level, now.on_break) == (1, STRUCTURE.levels[0], None)
    assert now.ends_at == T0 + timedelta(minutes=10)
    now = level_at(STRUCTURE, started_at=T0, now=T0 + timedelta(minutes=10))
    assert now.number == 2 and now.ends_at == T0 + timedelta(minutes=20)


def test_the_clock_enters_a_break_after_its_level_then_the_next_level() -> None:
    now = level_at(STRUCTURE, started_at=T0, now=T0 + timedelta(minutes=21))
    assert now.on_break == Break(after_level=2, minutes=5)
    assert now.number == 2 and now.ends_at == T0 + timedelta(minutes=25)
    now = level_at(STRUCTURE, started_at=T0, now=T0 + timedelta(minutes=25))
    assert (now.number, now.on_break, now.ends_at) == (3, None, T0 + timedelta(minutes=35))


def test_the_last_level_lasts_until_the_end() -> None:
    now = level_at(STRUCTURE, started_at=T0, now=T0 + timedelta(days=2))
    assert (now.number, now.ends_at) == (4, None)


def test_paused_time_does_not_count_on_the_clock() -> None:
    now = level_at(
        STRUCTURE, started_at=T0, now=T0 + timedelta(minutes=12), paused=timedelta(minutes=5)
    )
    assert now.number == 1 and now.ends_at == T0 + timedelta(minutes=15)


def test_the_clock_before_the_start_is_refused() -> None:
    with pytest.raises(TournamentRuleError) as caught:
        level_at(STRUCTURE, started_at=T0, now=T0 - timedelta(seconds=1))
    assert caught.value.code == "clock_before_start"


def test_levels_counted_in_hands_advance_with_the_hands_played() -> None:
    counted = Structure(
        levels=tuple(Level(small_blind=s, big_blind=2 * s, hands=10) for s in (10, 20, 30))
    )
    now = level_at(counted, started_at=T0, now=T0 + timedelta(hours=5), hands_played=9)
    assert (now.number, now.hands_left, now.ends_at) == (1, 1, None)
    now = level_at(counted, started_at=T0, now=T0, hands_played=10)
    assert (now.number, now.hands_left) == (2, 10)
    assert level_at(counted, started_at=T0, now=T0, hands_played=500).hands_left is None
