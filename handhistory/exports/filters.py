"""Which hands an export holds: the filters of an export job, and their date parsing.

Dates bound the hands by when they ENDED (a hand belongs to the day it was settled):
``since`` is inclusive, ``until`` exclusive. A date alone means the whole day in UTC, so
``since=2025-01-01, until=2025-01-31`` holds every hand of January 1 to 31.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from core.errors import InvalidRequest

#: The results an export can be narrowed to, as "My hands" offers them.
RESULTS = ("won", "lost")


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportFilters:
    """The selection of an export; empty fields select everything the requester may see."""

    tables: tuple[int, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    hand_ids: tuple[int, ...] = ()
    #: A player's username (staff exports only: players export their own hands).
    player: str | None = None
    #: "won" (net > 0) or "lost" (net < 0) for the player whose hands these are (the
    #: requester, or ``player`` for staff), as "My hands" filters them; None: any.
    result: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The job's ``filters`` column and API field."""
        return {
            "tables": list(self.tables),
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "hand_ids": list(self.hand_ids),
            "player": self.player,
            "result": self.result,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExportFilters:
        """The inverse of :meth:`as_json`."""
        return cls(
            tables=tuple(data.get("tables") or ()),
            since=datetime.fromisoformat(data["since"]) if data.get("since") else None,
            until=datetime.fromisoformat(data["until"]) if data.get("until") else None,
            hand_ids=tuple(data.get("hand_ids") or ()),
            player=data.get("player"),
            result=data.get("result"),
        )


def parse_when(text: str, *, field: str, end: bool = False) -> datetime:
    """An ISO 8601 date or date-time as an aware UTC datetime.

    A date-time without an offset is UTC. A date alone is midnight UTC starting that day,
    or, with ``end`` (an ``until`` bound, exclusive), the next day: the day is included.

    >>> parse_when("2025-01-31", field="until", end=True).isoformat()
    '2025-02-01T00:00:00+00:00'
    """
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime.combine(day + timedelta(days=1 if end else 0), time(), UTC)
        else:
            moment = datetime.fromisoformat(value.replace("z", "Z"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidRequest(
            f"{field} must be an ISO 8601 date (2025-01-31) or date-time "
            f"(2025-01-31T18:00:00Z), not {text!r}.",
            code="invalid_date",
            field=field,
        ) from None
    return moment
