"""The analysis job: count the new hands in chunks, then score pairs and sync the cases.

:func:`analysis_start` plans a run: the finished hands not yet counted (above the last
run's watermark), split into chunks of ``FRAUD_CHUNK_HANDS``. Each chunk is counted by
:func:`analysis_chunk` (``fraud.ingest``: idempotent, so any worker may take any chunk
and a retried chunk counts nothing twice); :func:`analysis_finish` scores every pair
(``fraud.detect``) and opens or updates the cases (``fraud.services.cases_sync``).
``fraud.tasks`` runs the chunks as a Celery chord (several workers share them); the
command ``fraud_analyse`` runs the same steps in one process. A full rebuild forgets the
counts first and counts every hand again; the cases stay and are re-synced.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Min
from django.utils import timezone

from fraud.detect import pair_scores, suspicions
from fraud.ingest import chunk_ingest
from fraud.models import AnalysisRun, IngestedHand, PairEvidence, PairStat
from fraud.services import cases_sync
from handhistory.models import Hand

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Plan:
    run_id: int
    chunks: list[list[int]]


def analysis_start(*, rebuild: bool = False, chunk_hands: int | None = None) -> Plan:
    """Opens a run and splits the hands it must count into chunks (of
    ``settings.FRAUD_CHUNK_HANDS`` by default)."""
    chunk_hands = chunk_hands or settings.FRAUD_CHUNK_HANDS
    with transaction.atomic(durable=True):
        if rebuild:
            PairEvidence.objects.all().delete()
            PairStat.objects.all().delete()
            IngestedHand.objects.all().delete()
            since = 0
        else:
            last = AnalysisRun.objects.filter(status=AnalysisRun.Status.SUCCEEDED).first()
            since = last.watermark if last else 0
        hands = Hand.objects.filter(pk__gt=since)
        running = hands.filter(ended_at__isnull=True).aggregate(low=Min("pk"))["low"]
        ids = list(
            hands.filter(ended_at__isnull=False)
            .exclude(pk__in=IngestedHand.objects.filter(hand_id__gt=since).values("hand_id"))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        top = hands.aggregate(top=Max("pk"))["top"] or since
        # Every finished hand at or below the watermark is counted once this run succeeds.
        watermark = running - 1 if running is not None else top
        chunks = [ids[i : i + chunk_hands] for i in range(0, len(ids), chunk_hands)]
        run = AnalysisRun.objects.create(
            rebuild=rebuild, watermark=watermark, chunks_total=len(chunks), hands_total=len(ids)
        )
    return Plan(run_id=run.pk, chunks=chunks)


def analysis_chunk(*, run_id: int, hand_ids: list[int]) -> int:
    """Counts one chunk and records the run's progress; returns the hands counted."""
    result = chunk_ingest(hand_ids=hand_ids)
    AnalysisRun.objects.filter(pk=run_id).update(
        chunks_done=F("chunks_done") + 1, hands_done=F("hands_done") + len(hand_ids)
    )
    return result.hands


def analysis_finish(*, run_id: int) -> AnalysisRun:
    """Scores the pairs, syncs the cases and closes the run with its summary."""
    started = time.perf_counter()
    scores = pair_scores()
    found = suspicions(scores)
    synced = cases_sync(suspicions=found)
    run = AnalysisRun.objects.get(pk=run_id)
    run.status = AnalysisRun.Status.SUCCEEDED
    run.finished_at = timezone.now()
    run.summary = {
        "pairs_scored": len(scores),
        "suspicions": len(found),
        "rings": sum(1 for s in found if s.ring),
        "opened": synced.opened,
        "updated": synced.updated,
        "skipped": synced.skipped,
        "scoring_seconds": round(time.perf_counter() - started, 3),
    }
    run.save(update_fields=["status", "finished_at", "summary"])
    return run


def analysis_fail(*, run_id: int, error: str) -> None:
    AnalysisRun.objects.filter(pk=run_id).update(
        status=AnalysisRun.Status.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def analysis_run(
    *, rebuild: bool = False, progress: Callable[[int, int], None] | None = None
) -> AnalysisRun:
    """The whole job in this process: plan, every chunk, finish."""
    plan = analysis_start(rebuild=rebuild)
    done = 0
    try:
        for chunk in plan.chunks:
            analysis_chunk(run_id=plan.run_id, hand_ids=chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, sum(map(len, plan.chunks)))
        return analysis_finish(run_id=plan.run_id)
    except Exception as error:
        analysis_fail(run_id=plan.run_id, error=f"{type(error).__name__}: {error}")
        raise
