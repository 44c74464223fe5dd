"""One row per run of a consistency check: when, how long, what it looked at, what failed."""

from __future__ import annotations

from django.db import models


class AuditRun(models.Model):
    class Check(models.TextChoices):
        LEDGER = "ledger", "Ledger audit"
        EVENT_STORE = "event_store", "Event store (incremental)"
        EVENT_STORE_FULL = "event_store_full", "Event store (full pass)"
        REPLAY_SETTLEMENT = "replay_settlement", "Replay versus settlement"
        TABLE_STAKES = "table_stakes", "Table stakes versus engine stacks"
        TOURNAMENT_ACCOUNTS = "tournament_accounts", "Ended tournaments' accounts at zero"

    class Status(models.TextChoices):
        RUNNING = "running"
        PASSED = "passed"
        FAILED = "failed"  # the check ran and found discrepancies
        ERROR = "error"  # the check itself crashed: nothing is known either way

    #: Which check ran (not ``check``: that name is ``Model.check()``, Django's system checks).
    check_name = models.CharField(max_length=24, choices=Check.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.RUNNING)
    started_at = models.DateTimeField(db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    #: What the check looked at: transfers, events, finished hands or idle tables.
    checked = models.PositiveIntegerField(default=0)
    #: Readable problems, at most ``audit.services.MAX_FAILURES`` of them...
    failures = models.JSONField(default=list, blank=True)
    #: ...out of this many.
    failure_count = models.PositiveIntegerField(default=0)
    #: Event-store passes: every event up to this position is verified (the next
    #: incremental pass starts after the one of the last passed run).
    watermark = models.BigIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["check_name", "-started_at"], name="audit_run_check_started")
        ]

    def __str__(self) -> str:
        return f"{self.check_name} {self.status} at {self.started_at:%Y-%m-%d %H:%M:%S}"
