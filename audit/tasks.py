"""Celery task of the audit runs (beat schedules one entry per check: settings)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from audit.services import audit_run


@shared_task(name="audit.run")  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def audit_run_task(check: str) -> dict[str, Any]:
    """Runs and records one check; the result is the run's summary."""
    run = audit_run(check=check)
    return {
        "id": run.pk,
        "check": run.check_name,
        "status": run.status,
        "checked": run.checked,
        "failures": run.failure_count,
    }
