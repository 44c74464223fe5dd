"""Reads of the audit runs."""

from __future__ import annotations

from audit.models import AuditRun


def event_store_watermark() -> int:
    """Where the next incremental event-store pass starts: the watermark of the last
    passed event-store run (incremental or full), 0 before any."""
    watermark = (
        AuditRun.objects.filter(
            check_name__in=[AuditRun.Check.EVENT_STORE, AuditRun.Check.EVENT_STORE_FULL],
            status=AuditRun.Status.PASSED,
            watermark__isnull=False,
        )
        .order_by("-started_at", "-id")
        .values_list("watermark", flat=True)
        .first()
    )
    return watermark or 0
