"""Hand-history export jobs: create (and enqueue), cancel; the operator's export to a file;
the record of a staff member's single-hand export. A queued job runs in
``handhistory.export_jobs`` (called by ``handhistory.tasks``).

Every export leaves an :class:`~handhistory.models.ExportJob` row, so "who exported what,
when, with which cards" has one answer. A job streams its hands' stored texts through
``stored.iter_texts`` (a server-side cursor) into a temporary file, one chunk in memory at
a time, then hands the file to the ``exports`` storage; its progress is saved and its
cancellation checked once per chunk, in the same single UPDATE.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, Forbidden, InvalidRequest, NotFound, TooManyRequests
from core.idempotency import same_request
from handhistory.export_jobs import job_fail, job_stream, player_id_of, ttl
from handhistory.exports import Format
from handhistory.exports.filters import RESULTS, ExportFilters
from handhistory.models import ExportJob, Hand
from handhistory.selectors import export_format, export_hands, hand_export
from handhistory.tasks import export_run
from staff.log import staff_log_record
from staff.roles import HAND_FULL_PERMISSION, staff_has

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
        player_id = player_id_of(filters.player)
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
                same_request(earlier.request_hash == request_hash, key=idempotency_key)
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
            hands = export_hands(
                filters=filters, requester_id=requester.pk, full=True, player_id=player_id
            )
            _full_view_open(user=requester, hands=hands)
        job = ExportJob.objects.create(
            requester=requester,
            source=source,
            format=fmt,
            full=full,
            filters=filters.as_json(),
            expires_at=timezone.now() + ttl(),
            idempotency_key=idempotency_key,
            request_hash=request_hash,
        )
        if job.full:  # every card of other players' hands leaves the room: on the staff log
            staff_log_record(
                actor=requester,
                action="hand.export_full",
                target=f"export:{job.pk}",
                subject_id=player_id_of(filters.player) if filters.player is not None else None,
                data={"format": fmt, "filters": job.filters},
            )
        transaction.on_commit(
            lambda: export_run.apply_async((job.pk,), queue=settings.EXPORT_QUEUE)
        )
    # Under eager Celery (``make run``) the job has already run: answer what it is now.
    job.refresh_from_db()
    return job, True


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
            count = job_stream(job, text, tick=tick)
        os.replace(partial, out)
    except BaseException as exc:
        with contextlib.suppress(OSError):  # e.g. never created: its directory is missing
            partial.unlink()
        if isinstance(exc, Exception):
            job_fail(job, exc)
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
        staff_log_record(
            actor=staff,
            action="hand.export_full",
            target=f"export:{job.pk}",  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
            data={"format": fmt, "filters": job.filters},
        )
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
        actor=staff,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
        action="hand.view_full",
        target=f"hand:{hand_id}",
        data={"players": sorted(players)},
    )
