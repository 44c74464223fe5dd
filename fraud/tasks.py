"""The analysis as Celery work: a chord of chunks that any worker takes, then the scoring.

The beat queues ``fraud.analyse`` every few minutes; it plans a run and fans the chunks
out (``fraud.ingest_chunk``), and the chord's callback (``fraud.finish_analysis``) scores
and syncs the cases once every chunk is counted. A run still going is not doubled: the
beat's next tick returns at once while one is running (and not stale). Thin: each task
calls one service of ``fraud.analysis``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from celery import chord, shared_task
from django.utils import timezone

from fraud.analysis import analysis_chunk, analysis_fail, analysis_finish, analysis_start
from fraud.models import AnalysisRun

#: A run older than this that never finished (a lost worker) no longer blocks the next.
STALE = timedelta(hours=1)


@shared_task(name="fraud.analyse", ignore_result=True)  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def analyse(rebuild: bool = False) -> int | None:
    """Plans a run over the new hands (every hand with ``rebuild``) and queues its chunks."""
    busy = AnalysisRun.objects.filter(
        status=AnalysisRun.Status.RUNNING, started_at__gte=timezone.now() - STALE
    )
    if busy.exists() and not rebuild:
        return None
    plan = analysis_start(rebuild=rebuild)
    finish = finish_analysis.si(plan.run_id).on_error(analysis_failed.si(plan.run_id))
    if plan.chunks:
        chord(ingest_chunk.si(plan.run_id, chunk) for chunk in plan.chunks)(finish)
    else:
        finish.delay()
    return plan.run_id


@shared_task(name="fraud.ingest_chunk")  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def ingest_chunk(run_id: int, hand_ids: list[int]) -> int:
    return analysis_chunk(run_id=run_id, hand_ids=hand_ids)


@shared_task(name="fraud.finish_analysis", ignore_result=True)  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def finish_analysis(run_id: int) -> dict[str, Any]:
    return analysis_finish(run_id=run_id).summary  # type: ignore[no-any-return]  # a JSONField reads as Any


@shared_task(name="fraud.analysis_failed", ignore_result=True)  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def analysis_failed(run_id: int) -> None:
    analysis_fail(run_id=run_id, error="a chunk or the scoring failed: see the worker's log")
