"""The worker's side of export jobs: run a queued job (streaming its hands in chunks into a
file, saving progress and seeing a cancellation once per chunk) and expire old files.

Below ``handhistory.services`` (which creates, cancels and enqueues jobs) and
``handhistory.tasks`` (which calls these), so neither imports the other back.
"""

from __future__ import annotations

import io
import logging
import tempfile
from collections.abc import Callable
from datetime import timedelta
from typing import TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.files.storage import storages
from django.utils import timezone

from core.errors import DomainError, NotFound
from handhistory.exports import write_texts
from handhistory.exports.filters import ExportFilters
from handhistory.exports.records import STAFF, Viewer
from handhistory.models import ExportJob
from handhistory.selectors import export_format, export_hands
from handhistory.stored_texts import iter_texts

logger = logging.getLogger(__name__)

Status = ExportJob.Status


class Cancelled(Exception):
    """The job was cancelled while it ran: stop at this chunk."""


def ttl() -> timedelta:
    return timedelta(hours=settings.EXPORT_TTL_HOURS)


def player_id_of(username: str) -> int:
    found = get_user_model().objects.filter(username=username).values_list("pk", flat=True)
    if not found:
        raise NotFound(f"No player {username!r}.", code="player_not_found", player=username)
    return int(found[0])


def export_job_run(*, job_id: int) -> None:
    """Runs a queued job: streams its hands into a temporary file, stores it, and marks the
    job succeeded; or failed with a human reason (logged at ERROR with the job id); or
    stops at the next chunk once cancelled. A job that is no longer queued or running
    (cancelled before it started, already finished) is left alone; a running one is run
    again from the start (its message is redelivered when a worker was lost mid-way)."""
    claimed = ExportJob.objects.filter(pk=job_id, status__in=ExportJob.ACTIVE).update(
        status=Status.RUNNING, hands_done=0
    )
    if not claimed:
        return
    job = ExportJob.objects.get(pk=job_id)
    storage = storages["exports"]
    try:
        with tempfile.TemporaryFile() as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            count = job_stream(job, text)
            text.flush()
            text.detach()  # the temporary file stays open for the storage to read
            size = raw.tell()
            raw.seek(0)
            extension = export_format(job.format).extension
            name = storage.save(f"{job.pk}/hands-{job.pk}.{extension}", File(raw))
    except Cancelled:
        return
    except Exception as exc:
        job_fail(job, exc)
        return
    now = timezone.now()
    finished = ExportJob.objects.filter(pk=job.pk, status=Status.RUNNING).update(
        status=Status.SUCCEEDED,
        hands_done=count,
        hands_total=max(count, job.hands_total or 0),
        file_name=name,
        size=size,
        finished_at=now,
        expires_at=now + ttl(),
    )
    if not finished:  # cancelled after the last chunk: the file has no job to serve it
        storage.delete(name)


def job_stream(
    job: ExportJob, out: TextIO, *, tick: Callable[[int, int], None] | None = None
) -> int:
    """Writes the job's hands into ``out``; saves the total first, then the progress once
    per chunk (raising :class:`Cancelled` if the job is no longer running)."""
    filters = ExportFilters.from_json(job.filters)
    player_id = player_id_of(filters.player) if filters.player else None
    hands = export_hands(
        filters=filters, requester_id=job.requester_id, full=job.full, player_id=player_id
    )
    total = hands.count()
    job.hands_total = total
    _checkpoint(job.pk, hands_total=total, hands_done=0)
    chunk = settings.EXPORT_CHUNK_SIZE

    def progress(done: int) -> None:
        if tick is not None:
            tick(done, total)
        if done % chunk == 0:
            _checkpoint(job.pk, hands_done=done)

    viewer = STAFF if job.full else Viewer(user_id=job.requester_id)
    fmt = export_format(job.format)
    texts = iter_texts(hands, fmt, viewer, chunk_size=chunk)
    return write_texts(fmt, texts, out, progress=progress)


def _checkpoint(job_id: int, **fields: int) -> None:
    # One UPDATE both saves the progress and sees a cancellation: it matches no row once
    # the job has left "running" (it waits for a concurrent cancel to commit first).
    if not ExportJob.objects.filter(pk=job_id, status=Status.RUNNING).update(**fields):
        raise Cancelled


def _reason(job: ExportJob, exc: BaseException) -> str:
    """What the requester is told: no traceback, no path, no secret."""
    if isinstance(exc, DomainError):
        return exc.message
    if isinstance(exc, OSError):
        return (
            "The export file could not be written or stored (storage unavailable or full); "
            "try again later."
        )
    return f"The export stopped on an unexpected error (logged with job {job.pk}); try again later."


def job_fail(job: ExportJob, exc: BaseException) -> None:
    reason = _reason(job, exc)
    logger.error(
        "export job %s failed: %s", job.pk, reason, exc_info=exc, extra={"export_job": job.pk}
    )
    ExportJob.objects.filter(pk=job.pk, status=Status.RUNNING).update(
        status=Status.FAILED, error=reason, finished_at=timezone.now()
    )


def export_jobs_expire() -> int:
    """Deletes the files of the jobs whose expiry has passed and marks them expired;
    returns how many. A file the storage cannot delete is logged and tried again at the
    next sweep."""
    storage = storages["exports"]
    expired = 0
    due = ExportJob.objects.filter(expires_at__lte=timezone.now()).exclude(file_name="")
    for job_id, name in due.values_list("pk", "file_name").iterator():
        try:
            storage.delete(name)
        except OSError:
            logger.exception("export job %s: could not delete its expired file", job_id)
            continue
        expired += ExportJob.objects.filter(pk=job_id, file_name=name).update(
            status=Status.EXPIRED, file_name=""
        )
    return expired
