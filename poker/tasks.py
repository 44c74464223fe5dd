"""Shot clock and housekeeping tasks (thin: each calls one service)."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from core.health import record_sweep
from poker.commands.play import timeouts_sweep
from poker.models import TableUpdate
from poker.presence import presence_prune

#: How long the per-version update log is kept for resync.
UPDATE_LOG_RETENTION = timedelta(hours=1)


@shared_task(name="poker.sweep_timeouts", ignore_result=True)
def sweep_timeouts() -> int:
    """Enforces every overdue turn (run every second by beat; safe to run concurrently)."""
    enforced = timeouts_sweep()
    record_sweep()  # /healthz's proof that the clock runs
    return enforced


@shared_task(name="poker.prune_update_log", ignore_result=True)
def prune_update_log() -> int:
    """Drops resync entries older than the retention (clients then get a snapshot)."""
    deleted, _ = TableUpdate.objects.filter(
        created_at__lt=timezone.now() - UPDATE_LOG_RETENTION
    ).delete()
    return deleted


@shared_task(name="poker.prune_presence", ignore_result=True)
def prune_presence() -> int:
    """Drops the rows of sockets closed (or of dead processes) long ago."""
    return presence_prune()
