"""Reads of the hand history for the API: a hand exported as text, export jobs and the
hands an export holds; a player's results per month for their account."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from django.core.files.storage import storages
from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import TruncMonth
from django.utils import timezone

from core.errors import Conflict, Gone, InvalidRequest, NotFound
from handhistory import stored_texts
from handhistory.exports import FORMATS, Format
from handhistory.exports.filters import ExportFilters
from handhistory.exports.records import STAFF, Viewer
from handhistory.models import ExportJob, Hand, PlayerHandResult
from poker.engine.privacy import may_read_hand


def hand_export(*, hand_id: int, viewer_id: int | None, fmt: str, full: bool = False) -> str:
    """Hand ``hand_id`` as ``fmt`` text, as ``viewer_id`` may see it (``full``: staff, every
    card, any hand). The same refusals as the JSON hand view: someone else's hand is unknown."""
    export = export_format(fmt)
    hand = Hand.objects.filter(pk=hand_id).values("player_ids", "ended_at").first()
    if hand is None or not may_read_hand(viewer_id, hand["player_ids"], staff=full):
        raise NotFound(f"No hand {hand_id} in your history.", code="hand_not_found", hand=hand_id)
    if hand["ended_at"] is None:
        raise Conflict(
            f"Hand {hand_id} is still being played; it can be exported once it ends.",
            code="hand_in_progress",
            hand=hand_id,
        )
    return stored_texts.hand_text(hand_id, export, STAFF if full else Viewer(user_id=viewer_id))


def results_by_month(*, user_id: int, since: datetime) -> list[tuple[date, str, int, int]]:
    """Per calendar month (UTC) and table currency, the player's net result and how many
    hands of theirs ended since ``since``: ``(month's first day, currency, net, hands)``
    (the account history's hand columns, ``wallet.selectors.PLAY``)."""
    rows = (
        PlayerHandResult.objects.filter(player_id=user_id, ended_at__gte=since)
        .annotate(month=TruncMonth("ended_at", tzinfo=UTC))
        .values("month", "table__currency")
        .annotate(total=Sum("net"), count=Count("id"))
    )
    return [
        (row["month"].date(), row["table__currency"], int(row["total"] or 0), int(row["count"]))
        for row in rows
    ]


def export_format(name: str) -> Format:
    """The export format called ``name``, or 400 ``unknown_format``."""
    if name not in FORMATS:
        raise InvalidRequest(
            f"Unknown export format {name!r} (known: {', '.join(sorted(FORMATS))}).",
            code="unknown_format",
            format=name,
            formats=sorted(FORMATS),
        )
    return FORMATS[name]


def export_hands(
    *, filters: ExportFilters, requester_id: int | None, full: bool, player_id: int | None = None
) -> QuerySet[Hand]:
    """The finished hands an export holds: the requester's own (through the per-player
    results index), or any for a ``full`` (staff) export, narrowed by ``player_id`` (the
    resolved ``filters.player``) and the filters; ``filters.result`` is that player's
    result (staff without a player: their own, as on "My hands")."""
    hands = Hand.objects.filter(ended_at__isnull=False)
    whose = player_id if full else requester_id
    if full and whose is None and filters.result is not None:
        whose = requester_id  # staff's result filter without a player: their own results
    if whose is not None:
        # One filter() call: the result is the same player's row of the join.
        mine: dict[str, Any] = {"results__player_id": whose}
        if filters.result == "won":
            mine["results__net__gt"] = 0
        elif filters.result == "lost":
            mine["results__net__lt"] = 0
        hands = hands.filter(**mine)
    if filters.tables:
        hands = hands.filter(table_id__in=filters.tables)
    if filters.hand_ids:
        hands = hands.filter(pk__in=filters.hand_ids)
    if filters.since is not None:
        hands = hands.filter(ended_at__gte=filters.since)
    if filters.until is not None:
        hands = hands.filter(ended_at__lt=filters.until)
    return hands


def export_jobs_of(*, requester_id: int) -> QuerySet[ExportJob]:
    """A user's export jobs, newest first."""
    return ExportJob.objects.filter(requester_id=requester_id).order_by("-created_at", "-id")


def export_job_get(*, job_id: int, requester_id: int) -> ExportJob:
    """One of the user's jobs; anyone else's is unknown (404 ``export_not_found``)."""
    job = ExportJob.objects.filter(pk=job_id, requester_id=requester_id).first()
    if job is None:
        raise NotFound(f"No export {job_id} of yours.", code="export_not_found", export=job_id)
    return job


@dataclass(frozen=True, slots=True)
class ExportDownload:
    """An export file ready to stream: an open binary file, its name and type."""

    file: object
    filename: str
    content_type: str


def export_job_download(*, job_id: int, requester_id: int | None) -> ExportDownload:
    """The file of the requester's job (``requester_id`` None: any job, for the admin),
    opened from the exports storage: 404 ``export_not_found`` for someone else's job, 409
    ``export_not_ready`` before it succeeded (or when it keeps no file), 410
    ``export_expired`` once its expiry passed."""
    if requester_id is None:
        job = ExportJob.objects.filter(pk=job_id).first()
        if job is None:
            raise NotFound(f"No export {job_id}.", code="export_not_found", export=job_id)
    else:
        job = export_job_get(job_id=job_id, requester_id=requester_id)
    if job.status == ExportJob.Status.EXPIRED or (
        job.status == ExportJob.Status.SUCCEEDED
        and job.expires_at is not None
        and job.expires_at <= timezone.now()
    ):
        raise Gone(
            f"Export {job.pk} has expired and its file was deleted; start a new export.",
            code="export_expired",
            export=job.pk,
        )
    if job.status != ExportJob.Status.SUCCEEDED or not job.file_name:
        raise Conflict(
            f"Export {job.pk} has no file to download (status {job.status}).",
            code="export_not_ready",
            export=job.pk,
            status=job.status,
        )
    fmt = FORMATS.get(job.format)
    return ExportDownload(
        file=storages["exports"].open(job.file_name, "rb"),
        filename=f"hands-{job.pk}.{fmt.extension if fmt else 'txt'}",
        content_type=fmt.content_type if fmt else "text/plain; charset=utf-8",
    )
