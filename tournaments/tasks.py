"""The director's periodic work (thin: each task calls one service)."""

from __future__ import annotations

from celery import shared_task

from tournaments.director import tournaments_start_due


@shared_task(name="tournaments.start_due", ignore_result=True)
def start_due() -> int:
    """Starts the full sit-and-gos whose start never ran or was cut short (beat)."""
    return tournaments_start_due()
