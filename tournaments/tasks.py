"""The director's periodic work (thin: each task calls one service)."""

from __future__ import annotations

from celery import shared_task

from tournaments.director import tournaments_resume, tournaments_start_due


@shared_task(name="tournaments.start_due", ignore_result=True)
def start_due() -> int:
    """Starts the tournaments due whose start never ran or was cut short, cancels the
    scheduled ones due with too few players (beat)."""
    return tournaments_start_due()


@shared_task(name="tournaments.resume", ignore_result=True)
def resume() -> int:
    """Makes the moves a crash left unmade and deals the idle tables that may (beat)."""
    return tournaments_resume()
