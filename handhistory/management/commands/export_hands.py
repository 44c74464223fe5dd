"""`manage.py export_hands`: an operator's export of hand histories into a local file.

Every card is included (this is a staff tool), and the run is recorded as an export job
with source ``cli``, like every other export.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from core.errors import DomainError
from handhistory.exports import FORMATS
from handhistory.exports.filters import ExportFilters, parse_when
from handhistory.services import export_file_write


class Command(BaseCommand):
    help = (
        "Export finished hands (every card) into a file: one player's (--player) or every "
        "hand (--all), optionally of some tables and between dates (by the hand's end, UTC; "
        "--until is exclusive, a date alone includes that day)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--format", required=True, dest="fmt", help=f"one of {', '.join(sorted(FORMATS))}"
        )
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument("--player", help="the hands this username played")
        who.add_argument("--all", action="store_true", help="every finished hand")
        parser.add_argument(
            "--table", type=int, action="append", default=[], help="a table id (repeatable)"
        )
        parser.add_argument("--since", help="ISO date or date-time (inclusive)")
        parser.add_argument("--until", help="ISO date or date-time (exclusive; a date: its end)")
        parser.add_argument("--out", required=True, type=Path, help="the file to write")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        bar: tqdm[Any] | None = None

        def tick(done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = tqdm(
                    total=total, unit="hand", file=self.stderr._out, disable=options["no_progress"]
                )
            bar.update(done - bar.n)

        try:
            filters = ExportFilters(
                tables=tuple(options["table"]),
                since=parse_when(options["since"], field="since") if options["since"] else None,
                until=(
                    parse_when(options["until"], field="until", end=True)
                    if options["until"]
                    else None
                ),
                player=options["player"],
            )
            job = export_file_write(
                fmt=options["fmt"], filters=filters, out=options["out"], tick=tick
            )
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        except OSError as exc:  # the operator's own file: the system's reason helps
            raise CommandError(f"Could not write {options['out']}: {exc.strerror}") from exc
        finally:
            if bar is not None:
                bar.close()
        self.stdout.write(
            f"Exported {job.hands_done} hands ({job.size} bytes) to {options['out']} in "
            f"{time.monotonic() - started:.1f} s (export job {job.pk})."
        )
