"""manage.py fraud_analyse [--rebuild]: the collusion analysis, now, in this process.

The same steps as the beat's Celery job (count the new hands in chunks, score the pairs,
open or update the cases), run synchronously, with a progress bar and a summary.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from fraud.analysis import analysis_run
from fraud.models import Case


class Command(BaseCommand):
    help = "Counts the new hands into the pair statistics, scores the pairs and syncs the cases."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rebuild", action="store_true", help="forget the counts and count every hand again"
        )
        parser.add_argument("--top", type=int, default=10, help="cases to list (default 10)")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        with tqdm(
            unit="hand", desc="hands", disable=options["verbosity"] < 1, file=self.stderr._out
        ) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            run = analysis_run(rebuild=options["rebuild"], progress=progress)
        seconds = time.perf_counter() - started
        s = run.summary
        rate = run.hands_total / seconds if seconds else 0.0
        self.stdout.write(
            f"Analysis {run.pk}: {run.hands_total} hands counted in {seconds:.1f} s "
            f"({rate:,.0f} hands/s); {s['pairs_scored']} pairs scored, {s['suspicions']} "
            f"suspicions ({s['rings']} rings): {s['opened']} cases opened, {s['updated']} "
            f"updated, {s['skipped']} already decided."
        )
        live = Case.objects.filter(status__in=Case.LIVE).prefetch_related("players")
        for case in live.order_by("-score", "-id")[: options["top"]]:
            names = ", ".join(sorted(p.username for p in case.players.all()))
            self.stdout.write(
                f"  case {case.pk}  score {case.score:6.1f}  {'/'.join(case.kinds):<28} {names}"
            )
