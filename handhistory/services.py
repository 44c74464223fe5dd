"""Hand-history export jobs: create, run (streaming, in chunks), cancel, expire; the
operator's export to a file; the record of a staff member's single-hand export.

Every export leaves an :class:`~handhistory.models.ExportJob` row, so "who exported what,
when, with which cards" has one answer. A job streams its hands' stored texts through
``stored.iter_texts`` (a server-side cursor) into a temporary file, one chunk in memory at
a time, then hands the file to the ``exports`` storage; its progress is saved and its
cancellation checked once per chunk, in the same single UPDATE.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.files.storage import storages
from django.db import transaction
from django.utils import timezone

from backoffice.roles import HAND_FULL_PERMISSION, staff_has
from backoffice.services import staff_log_record
from core.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, TooManyRequests
from handhistory.exports import Format, write_texts
from handhistory.exports.filters import RESULTS, ExportFilters
from handhistory.exports.records import STAFF, Viewer
from handhistory.exports.stored import iter_texts
from handhistory.models import ExportJob, Hand
from handhistory.selectors import export_format, export_hands, hand_export

logger = logging.getLogger(__name__)

Status = ExportJob.Status


#: The gate of every every-card read of hands: ``gate(user=, hands=)`` raises when ``user``
#: may not see every card of the ``hands`` queryset now, and records that they did. The
#: rule needs the tables' seats, so it is poker's (``poker.full_view.full_view_hands_open``),
#: registered in ``PokerConfig.ready()``; until then nobody passes (a closed default).
FullViewGate = Callable[..., None]


def _no_gate(*, user: Any, hands: Any) -> None:
    raise Forbidden("No every-card rule is installed.", code="permission_denied")


FULL_VIEW_GATE: list[FullViewGate] = [_no_gate]


def full_view_gate_register(gate: FullViewGate) -> None:
    """Makes ``gate`` the one rule for every card of hands (the poker app's ``ready()``)."""
    FULL_VIEW_GATE[:] = [gate]


def _full_view_open(*, user: Any, hands: Any) -> None:
    FULL_VIEW_GATE[0](user=user, hands=hands)


class _Cancelled(Exception):
    """The job was cancelled while it ran: stop at this chunk."""


def _ttl() -> timedelta:
    return timedelta(hours=settings.EXPORT_TTL_HOURS)


def _validated(*, requester: Any, fmt: str, filters: ExportFilters) -> tuple[Format, int | None]:
    """The format and the filter's player id, or the typed refusal. Reads only.

    ``requester`` None is an operator (command line): any hand, every card.
    """
    export = export_format(fmt)
    staff = requester is None or staff_has(requester, HAND_FULL_PERMISSION)
    if filters.since and filters.until and filters.since >= filters.until:
        raise InvalidRequest(
            f"since ({filters.since.isoformat()}) must be before until "
            f"({filters.until.isoformat()}).",
            code="invalid_date_range",
            since=filters.since.isoformat(),
            until=filters.until.isoformat(),
        )
    if filters.result is not None and filters.result not in RESULTS:
        raise InvalidRequest(
            f"result must be one of {', '.join(RESULTS)}, not {filters.result!r}.",
            code="invalid_result",
            result=filters.result,
        )
    player_id = None
    if filters.player is not None:
        if not staff:
            raise Forbidden(
                "Only staff may export another player's hands.", code="permission_denied"
            )
        player_id = _player_id(filters.player)
    if filters.tables:
        # The tables hands are dealt at, reached through the hand's key (the table rows
        # are poker's, a layer above).
        tables = Hand._meta.get_field("table").related_model._default_manager
        known = set(tables.filter(pk__in=filters.tables).values_list("pk", flat=True))
        missing = sorted(set(filters.tables) - known)
        if missing:
            raise NotFound(f"No table {missing[0]}.", code="table_not_found", tables=missing)
    if filters.hand_ids:
        hands = {
            pk: (player_ids, ended_at)
            for pk, player_ids, ended_at in Hand.objects.filter(
                pk__in=filters.hand_ids
            ).values_list("pk", "player_ids", "ended_at")
        }
        for hand_id in filters.hand_ids:
            # The hand view's rule: a hand you did not play does not exist for you.
            if hand_id not in hands or not (staff or requester.pk in hands[hand_id][0]):
                raise NotFound(
                    f"No hand {hand_id} in your history.", code="hand_not_found", hand=hand_id
                )
            if hands[hand_id][1] is None:
                raise Conflict(
                    f"Hand {hand_id} is still being played; it can be exported once it ends.",
                    code="hand_in_progress",
                    hand=hand_id,
                )
    return export, player_id


def _player_id(username: str) -> int:
    found = get_user_model().objects.filter(username=username).values_list("pk", flat=True)
    if not found:
        raise NotFound(f"No player {username!r}.", code="player_not_found", player=username)
    return int(found[0])


def export_job_create(
    *,
    requester: Any,
    fmt: str,
    filters: ExportFilters,
    source: str = ExportJob.Source.API,
    idempotency_key: str = "",
    request_hash: str = "",
) -> tuple[ExportJob, bool]:
    """Queues an export of ``requester``'s hands (any hands, every card, for staff);
    returns the job and whether it is new (False: the ``idempotency_key`` was used before
    with the same request, and that job is returned).

    Refusals write nothing: unknown format, reversed dates, unknown table, a hand the
    requester did not play, a player filter from a non-staff user, every card of hands
    the every-card rule withholds from this staff member (``poker.full_view``), and (429
    ``too_many_exports``) a requester who already has ``EXPORT_MAX_ACTIVE_JOBS`` queued or
    running jobs. The quota is counted under a lock on the requester's user row, so two
    concurrent requests cannot both take the last place.
    """
    _, player_id = _validated(requester=requester, fmt=fmt, filters=filters)
    full = staff_has(requester, HAND_FULL_PERMISSION)
    limit = settings.EXPORT_MAX_ACTIVE_JOBS
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=requester.pk).values("pk"))
        if idempotency_key:
            earlier = ExportJob.objects.filter(
                requester=requester, idempotency_key=idempotency_key
            ).first()
            if earlier is not None:
                if earlier.request_hash != request_hash:
                    raise Conflict(
                        "This Idempotency-Key was already used with a different request body.",
                        code="idempotency_key_reused",
                        key=idempotency_key,
                    )
                return earlier, False
        active = ExportJob.objects.filter(requester=requester, status__in=ExportJob.ACTIVE).count()
        if active >= limit:
            raise TooManyRequests(
                f"You have {active} exports queued or running (at most {limit}); wait for "
                "one to finish or cancel one.",
                code="too_many_exports",
                active=active,
                limit=limit,
            )
        if full:  # every card of these hands: the rule of every full view (recorded)
            hands = export_hands(filters=filters, requester_id=requester.pk, full=True,
                                 player_id=player_id)  # fmt: skip
            _full_view_open(user=requester, hands=hands)
        job = ExportJob.objects.create(
            requester=requester,
            source=source,
            format=fmt,
            full=full,
            filters=filters.as_json(),
            expires_at=timezone.now() + _ttl(),
            idempotency_key=idempotency_key,
            request_hash=request_hash,
        )
        if job.full:  # every card of other players' hands leaves the room: on the staff log
            staff_log_record(
                actor=requester,
                action="hand.export_full",
                target=f"export:{job.pk}",
                subject_id=_player_id(filters.player) if filters.player is not None else None,
                data={"format": fmt, "filters": job.filters},
            )
        transaction.on_commit(lambda: _enqueue(job.pk))
    # Under eager Celery (``make run``) the job has already run: answer what it is now.
    job.refresh_from_db()
    return job, True


def _enqueue(job_id: int) -> None:
    from handhistory.tasks import export_run

    export_run.apply_async((job_id,), queue=settings.EXPORT_QUEUE)


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
            count = _stream(job, text)
            text.flush()
            text.detach()  # the temporary file stays open for the storage to read
            size = raw.tell()
            raw.seek(0)
            extension = export_format(job.format).extension
            name = storage.save(f"{job.pk}/hands-{job.pk}.{extension}", File(raw))
    except _Cancelled:
        return
    except Exception as exc:
        _fail(job, exc)
        return
    now = timezone.now()
    finished = ExportJob.objects.filter(pk=job.pk, status=Status.RUNNING).update(
        status=Status.SUCCEEDED,
        hands_done=count,
        hands_total=max(count, job.hands_total or 0),
        file_name=name,
        size=size,
        finished_at=now,
        expires_at=now + _ttl(),
    )
    if not finished:  # cancelled after the last chunk: the file has no job to serve it
        storage.delete(name)


def _stream(job: ExportJob, out: TextIO, *, tick: Callable[[int, int], None] | None = None) -> int:
    """Writes the job's hands into ``out``; saves the total first, then the progress once
    per chunk (raising :class:`_Cancelled` if the job is no longer running)."""
    filters = ExportFilters.from_json(job.filters)
    player_id = _player_id(filters.player) if filters.player else None
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
        raise _Cancelled


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


def _fail(job: ExportJob, exc: BaseException) -> None:
    reason = _reason(job, exc)
    logger.error(
        "export job %s failed: %s", job.pk, reason, exc_info=exc, extra={"export_job": job.pk}
    )
    ExportJob.objects.filter(pk=job.pk, status=Status.RUNNING).update(
        status=Status.FAILED, error=reason, finished_at=timezone.now()
    )


def export_job_cancel(*, job_id: int, requester_id: int) -> ExportJob:
    """Cancels one of the requester's queued or running jobs (a running one stops at its
    next chunk and stores nothing); 409 ``export_finished`` once it has finished."""
    with transaction.atomic():
        job = ExportJob.objects.select_for_update().filter(pk=job_id, requester_id=requester_id)
        found = job.first()
        if found is None:
            raise NotFound(f"No export {job_id} of yours.", code="export_not_found", export=job_id)
        if found.status not in ExportJob.ACTIVE:
            raise Conflict(
                f"Export {job_id} has already finished ({found.status}).",
                code="export_finished",
                export=job_id,
                status=found.status,
            )
        found.status = Status.CANCELLED
        found.finished_at = timezone.now()
        found.save(update_fields=["status", "finished_at"])
    return found


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


def export_file_write(
    *,
    fmt: str,
    filters: ExportFilters,
    out: Path,
    tick: Callable[[int, int], None] | None = None,
) -> ExportJob:
    """An operator's export (``manage.py export_hands``): every card of the selected hands
    straight into the file ``out`` (replaced only once complete), recorded as a job with
    source ``cli`` and no requester. ``tick(done, total)`` follows every hand.

    Refusals (unknown format or player, reversed dates...) write nothing, not even ``out``.
    """
    _validated(requester=None, fmt=fmt, filters=filters)
    job = ExportJob.objects.create(
        requester=None,
        source=ExportJob.Source.CLI,
        format=fmt,
        full=True,
        filters=filters.as_json(),
        status=Status.RUNNING,
    )
    partial = out.with_name(f".{out.name}.{job.pk}.part")
    try:
        with partial.open("w", encoding="utf-8", newline="") as text:
            count = _stream(job, text, tick=tick)
        os.replace(partial, out)
    except BaseException as exc:
        with contextlib.suppress(OSError):  # e.g. never created: its directory is missing
            partial.unlink()
        if isinstance(exc, Exception):
            _fail(job, exc)
        else:  # interrupted (Ctrl-C): the operator stopped it
            ExportJob.objects.filter(pk=job.pk).update(
                status=Status.CANCELLED, finished_at=timezone.now()
            )
        raise
    ExportJob.objects.filter(pk=job.pk).update(
        status=Status.SUCCEEDED,
        hands_done=count,
        hands_total=max(count, job.hands_total or 0),
        size=out.stat().st_size,
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    return job


def hand_export_full(*, hand_id: int, staff_id: int, fmt: str) -> str:
    """Any hand as ``fmt`` text with every card, for staff whom the every-card rule lets
    see it; recorded as a finished job (source ``hand``, no file). A refused export
    (unknown format or hand, the rule's refusals) records nothing."""
    staff = get_user_model().objects.filter(pk=staff_id).first()
    export_format(fmt)
    _full_view_open(user=staff, hands=Hand.objects.filter(pk=hand_id))
    text = hand_export(hand_id=hand_id, viewer_id=staff_id, fmt=fmt, full=True)
    now = timezone.now()
    with transaction.atomic():
        job = ExportJob.objects.create(
            requester_id=staff_id,
            source=ExportJob.Source.HAND,
            format=fmt,
            full=True,
            filters=ExportFilters(hand_ids=(hand_id,)).as_json(),
            status=Status.SUCCEEDED,
            hands_done=1,
            hands_total=1,
            size=len(text.encode()),
            finished_at=now,
        )
        staff_log_record(actor=staff, action="hand.export_full", target=f"export:{job.pk}",  # type: ignore[arg-type]
                         data={"format": fmt, "filters": job.filters})  # fmt: skip
    return text


def hand_view_full_record(*, hand_id: int, staff_id: int) -> None:
    """Records on the staff log that a staff member viewed hand ``hand_id`` with every card
    (the hand API's JSON with ``full=1``): the line the staff hand page writes
    (``hand.view_full``, the hand, its players), next to the ``hand.export_full`` of the
    text exports. Called BEFORE the hand is read: it passes the every-card rule first.
    Refused (nothing written): whom the rule refuses (403 ``permission_denied``,
    ``full_view_while_seated``, 409 ``full_view_delayed``), an unknown hand (404
    ``hand_not_found``)."""
    staff = get_user_model().objects.filter(pk=staff_id).first()
    players = Hand.objects.filter(pk=hand_id).values_list("player_ids", flat=True).first()
    _full_view_open(user=staff, hands=Hand.objects.filter(pk=hand_id))
    if players is None:
        raise NotFound(f"No hand {hand_id}.", code="hand_not_found", hand=hand_id)
    staff_log_record(
        actor=staff,  # type: ignore[arg-type]
        action="hand.view_full",
        target=f"hand:{hand_id}",
        data={"players": sorted(players)},
    )
