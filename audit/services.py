"""Running a check and recording it: ``audit_run`` writes an ``AuditRun`` row per run
and tells staff (an ERROR log line and a mail) when a check fails or crashes."""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.utils import timezone

from audit import checks
from audit.models import AuditRun
from audit.selectors import event_store_watermark

logger = logging.getLogger("audit")

#: Problems kept on a run (``failure_count`` says how many there were): enough to act on,
#: and one forged table does not write megabytes of JSON every five minutes.
MAX_FAILURES = 200


def _runner(check: str) -> Callable[[], checks.CheckResult]:
    if check == AuditRun.Check.EVENT_STORE:
        return lambda: checks.check_event_store(after=event_store_watermark())
    return {
        AuditRun.Check.LEDGER: checks.check_ledger,
        AuditRun.Check.EVENT_STORE_FULL: checks.check_event_store_full,
        AuditRun.Check.REPLAY_SETTLEMENT: checks.check_replay_settlement,
        AuditRun.Check.TABLE_STAKES: checks.check_table_stakes,
        AuditRun.Check.TOURNAMENT_ACCOUNTS: checks.check_tournament_accounts,
    }[AuditRun.Check(check)]


def audit_run(*, check: str) -> AuditRun:
    """Runs one check (an ``AuditRun.Check`` value) and records it: the row is written as
    ``running`` first (the dashboard shows a run in progress), then finished with its
    status, duration, count and problems. A failed or crashed run is logged at ERROR
    (logger ``audit``) and mailed to staff.

    >>> audit_run(check="ledger").status  # doctest: +SKIP
    'passed'
    """
    runner = _runner(check)  # an unknown check is a ValueError before any row is written
    run = AuditRun.objects.create(check_name=check, started_at=timezone.now())
    began = time.monotonic()
    try:
        result = runner()
    except Exception as exc:
        run.status = AuditRun.Status.ERROR
        run.error = "".join(traceback.format_exception(exc))[-10_000:]
        logger.exception("audit %s crashed", check, extra={"audit_run": run.pk})
    else:
        run.status = AuditRun.Status.FAILED if result.failures else AuditRun.Status.PASSED
        run.checked = result.checked
        run.failure_count = len(result.failures)
        run.failures = result.failures[:MAX_FAILURES]
        run.watermark = result.watermark
    run.finished_at = timezone.now()
    run.duration_ms = round((time.monotonic() - began) * 1000)
    run.save()
    if run.status == AuditRun.Status.FAILED:
        logger.error(
            "audit %s FAILED: %d problem(s)\n%s",
            check,
            run.failure_count,
            "\n".join(run.failures[:20]),
            extra={"audit_run": run.pk},
        )
    if run.status != AuditRun.Status.PASSED:
        _notify_staff(run)
    return run


def _notify_staff(run: AuditRun) -> None:
    """Mails the run to active staff with an address and to ``settings.ADMINS``. A mail
    that cannot be sent is logged: the run is recorded (and red on the dashboard) anyway."""
    recipients = sorted(
        {
            *get_user_model()
            .objects.filter(is_staff=True, is_active=True)
            .exclude(email="")
            .values_list("email", flat=True),
            *(email for _, email in settings.ADMINS),
        }
    )
    if not recipients:
        return
    label = AuditRun.Check(run.check_name).label
    if run.status == AuditRun.Status.ERROR:
        subject = f"Audit {label}: the check crashed"
        body = f"The check could not run; nothing is known either way.\n\n{run.error}"
    else:
        subject = f"Audit {label}: FAILED with {run.failure_count} problem(s)"
        more = run.failure_count - len(run.failures)
        body = "\n".join(
            [f"- {problem}" for problem in run.failures]
            + ([f"... and {more} more"] if more else [])
        )
    body += (
        f"\n\nRun {run.pk}, started {run.started_at:%Y-%m-%d %H:%M:%S} UTC, {run.duration_ms} ms."
    )
    try:
        send_mail(
            f"{settings.EMAIL_SUBJECT_PREFIX}{subject}",
            body,
            settings.SERVER_EMAIL,
            recipients,
        )
    except Exception:
        logger.exception("audit mail not sent", extra={"audit_run": run.pk})
