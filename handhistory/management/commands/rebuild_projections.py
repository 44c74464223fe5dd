"""`manage.py rebuild_projections`: recompute hand summaries and results from the events."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from handhistory.projections import rebuild_all


class Command(BaseCommand):
    help = "Drop and rebuild every projection (hand summaries, per-player results) from events."

    def handle(self, *args: Any, **options: Any) -> None:
        count = rebuild_all()
        self.stdout.write(f"Rebuilt projections of {count} finished hands.")
