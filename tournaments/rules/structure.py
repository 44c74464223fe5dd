"""The blind structure: levels and breaks, validated, three shipped templates, and the
ONE tournament-wide clock.

Rules a structure must follow (else :class:`~tournaments.rules.errors.StructureError`):

- ``invalid_levels``: at least one level; every amount an integer; ``0 < small_blind <=
  big_blind``; the small blind never falls and the big blind rises at every level;
  ``ante >= 0`` (with ``big_blind_ante`` the big blind posts ``ante`` for the table, so it
  must be positive); each level lasts exactly one of ``minutes`` or ``hands`` (positive),
  and a structure is either all timed or all counted in hands.
- ``invalid_breaks``: a break follows an existing level that is not the last, at most one
  break per level, ``minutes > 0``; breaks need a timed structure (a hand count says
  nothing about when a break ends).

The clock is a pure function of the structure, the start time, the time now, the time
the tournament spent paused by staff and (for levels counted in hands) the hands the
tournament has dealt: every table reads the level from it when it starts a hand, and no
table keeps a clock of its own. After the last level the last level goes on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tournaments.rules.errors import StructureError

DATA = Path(__file__).resolve().parent / "data"

#: The templates that ship with the app, fastest first (``data/<name>.json``).
TEMPLATES = ("turbo", "regular", "deep")


@dataclass(frozen=True, kw_only=True)
class Level:
    """One blind level: the forced bets, and how long it lasts (minutes or hands)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False
    minutes: int | None = None
    hands: int | None = None


@dataclass(frozen=True, kw_only=True)
class Break:
    """A pause of ``minutes`` after level number ``after_level`` (counted from 1)."""

    after_level: int
    minutes: int


@dataclass(frozen=True, kw_only=True)
class Structure:
    """Levels and breaks, validated on construction."""

    levels: tuple[Level, ...]
    breaks: tuple[Break, ...] = ()

    def __post_init__(self) -> None:
        _check_levels(self.levels)
        _check_breaks(self.levels, self.breaks)

    @property
    def timed(self) -> bool:
        """True when the levels last minutes, False when they last hands."""
        return self.levels[0].minutes is not None


@dataclass(frozen=True, kw_only=True)
class Clock:
    """Where the tournament stands: level ``number`` (from 1) and its ``level``; during a
    break, ``on_break`` is the break after level ``number``. ``ends_at`` is when the level
    or break ends (None for the last level, or for levels counted in hands), ``hands_left``
    the hands left in a level counted in hands (None otherwise, and for the last level)."""

    number: int
    level: Level
    on_break: Break | None
    ends_at: datetime | None
    hands_left: int | None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _levels_error(number: int, problem: str) -> StructureError:
    return StructureError(
        code="invalid_levels", message=f"level {number}: {problem}", extra={"level": number}
    )


def _check_levels(levels: tuple[Level, ...]) -> None:
    if not levels:
        raise StructureError(code="invalid_levels", message="a structure needs at least one level")
    timed = levels[0].minutes is not None
    for number, (level, before) in enumerate(zip(levels, (None, *levels), strict=False), 1):
        amounts = (level.small_blind, level.big_blind, level.ante)
        lengths = [n for n in (level.minutes, level.hands) if n is not None]
        if not all(_is_int(n) for n in (*amounts, *lengths)) or not isinstance(
            level.big_blind_ante, bool
        ):
            raise _levels_error(number, "amounts and lengths are whole numbers")
        if not 0 < level.small_blind <= level.big_blind:
            raise _levels_error(
                number,
                f"blinds {level.small_blind}/{level.big_blind} need 0 < small blind <= big blind",
            )
        if level.ante < 0 or (level.big_blind_ante and level.ante == 0):
            raise _levels_error(number, f"ante {level.ante} (a big blind ante needs an amount)")
        if len(lengths) != 1 or lengths[0] <= 0:
            raise _levels_error(number, "lasts exactly one of a positive minutes or hands")
        if (level.minutes is not None) != timed:
            raise _levels_error(number, "levels are all timed or all counted in hands")
        if before is not None and (
            level.small_blind < before.small_blind or level.big_blind <= before.big_blind
        ):
            raise _levels_error(
                number,
                f"blinds {level.small_blind}/{level.big_blind} do not rise from "
                f"{before.small_blind}/{before.big_blind}",
            )


def _check_breaks(levels: tuple[Level, ...], breaks: tuple[Break, ...]) -> None:
    seen: set[int] = set()
    for brk in breaks:
        problem = None
        if not (_is_int(brk.after_level) and _is_int(brk.minutes)):
            problem = "after_level and minutes are whole numbers"
        elif not 1 <= brk.after_level < len(levels):
            problem = f"follows level {brk.after_level}: levels 1 to {len(levels) - 1} may have one"
        elif brk.after_level in seen:
            problem = f"a second break after level {brk.after_level}"
        elif brk.minutes <= 0:
            problem = f"lasts {brk.minutes} minutes"
        elif levels[0].minutes is None:
            problem = "breaks need levels that last minutes"
        if problem:
            raise StructureError(code="invalid_breaks", message=f"break: {problem}")
        seen.add(brk.after_level)


def _build(cls: type[Any], data: object, what: str) -> Any:
    names = {f.name for f in fields(cls)}
    if not isinstance(data, Mapping) or not set(data) <= names:
        raise StructureError(
            code="invalid_structure",
            message=f"{what}: an object with only {', '.join(sorted(names))}",
        )
    try:
        return cls(**data)
    except TypeError as exc:
        raise StructureError(code="invalid_structure", message=f"{what}: {exc}") from None


def structure_from_data(data: object) -> Structure:
    """The structure in plain data (JSON as the API and the templates hold it):
    ``{"levels": [{"small_blind", "big_blind", "ante"?, "big_blind_ante"?, "minutes" |
    "hands"}], "breaks"?: [{"after_level", "minutes"}]}``."""
    if not isinstance(data, Mapping) or not isinstance(data.get("levels"), list):
        raise StructureError(code="invalid_structure", message="a structure has a list of levels")
    breaks = data.get("breaks", [])
    if not isinstance(breaks, list):
        raise StructureError(code="invalid_structure", message="breaks are a list")
    return Structure(
        levels=tuple(_build(Level, x, f"level {n}") for n, x in enumerate(data["levels"], 1)),
        breaks=tuple(_build(Break, x, "break") for x in breaks),
    )


def load_template(name: str) -> Structure:
    """One of :data:`TEMPLATES`, read from ``data/<name>.json`` and validated."""
    if name not in TEMPLATES:
        raise StructureError(
            code="unknown_template",
            message=f"no template {name!r}; there are {', '.join(TEMPLATES)}",
        )
    return structure_from_data(json.loads((DATA / f"{name}.json").read_text()))


def level_at(
    structure: Structure,
    *,
    started_at: datetime,
    now: datetime,
    paused: timedelta = timedelta(0),
    hands_played: int = 0,
) -> Clock:
    """The level or break the tournament is in at ``now``.

    ``paused`` is the time staff held the tournament paused since ``started_at`` (it does
    not count); ``hands_played`` the hands the tournament has dealt, for levels counted
    in hands. A break starts when its level ends; the next level when the break ends.
    """
    if now < started_at:
        raise StructureError(
            code="clock_before_start",
            message=f"the clock is read at {now.isoformat()}, before the start {started_at.isoformat()}",
        )
    levels = structure.levels
    if not structure.timed:
        left = hands_played
        for number, level in enumerate(levels, 1):
            assert level.hands is not None
            if left < level.hands or number == len(levels):
                hands_left = level.hands - left if number < len(levels) else None
                return Clock(
                    number=number, level=level, on_break=None, ends_at=None, hands_left=hands_left
                )
            left -= level.hands
    breaks = {brk.after_level: brk for brk in structure.breaks}
    period_start = started_at + paused
    for number, level in enumerate(levels, 1):
        assert level.minutes is not None
        if number == len(levels):
            break
        end = period_start + timedelta(minutes=level.minutes)
        if now < end:
            return Clock(number=number, level=level, on_break=None, ends_at=end, hands_left=None)
        if (brk := breaks.get(number)) is not None:
            period_start, end = end, end + timedelta(minutes=brk.minutes)
            if now < end:
                return Clock(number=number, level=level, on_break=brk, ends_at=end, hands_left=None)
        period_start = end
    return Clock(number=len(levels), level=levels[-1], on_break=None, ends_at=None, hands_left=None)
