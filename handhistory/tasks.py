"""Export jobs, the derived hand products and their housekeeping (thin: each calls one
service)."""

from __future__ import annotations

from celery import shared_task

from handhistory.derived import derive_backlog as backlog
from handhistory.export_jobs import export_job_run, export_jobs_expire


@shared_task(name="handhistory.export_run", ignore_result=True)  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def export_run(job_id: int) -> None:
    """Runs one export job (queued by ``export_job_create`` once its row is committed)."""
    export_job_run(job_id=job_id)


@shared_task(name="handhistory.expire_exports", ignore_result=True)  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def expire_exports() -> int:
    """Deletes the export files past their expiry (hourly, by beat)."""
    return export_jobs_expire()


@shared_task(name="handhistory.derive_backlog", ignore_result=True)  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def derive_backlog() -> int:
    """Derives the finished hands' missing products (by beat, every
    ``HANDHISTORY_DERIVE_SECONDS``)."""
    return backlog()
