"""``manage.py audit_run [--check NAME | --all]``: runs checks, records them, prints them;
exits 1 when one failed or crashed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from audit.models import AuditRun
from audit.services import audit_run


class Command(BaseCommand):
    help = "Run audit checks (recorded as AuditRun rows) and print their results."

    def add_arguments(self, parser: Any) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--check", choices=AuditRun.Check.values)
        which.add_argument("--all", action="store_true", help="every check, in turn")

    def handle(self, *args: Any, **options: Any) -> None:
        names = AuditRun.Check.values if options["all"] else [options["check"]]
        bad = 0
        for name in names:
            run = audit_run(check=name)
            self.stdout.write(
                f"{run.check_name}: {run.status.upper()} ({run.checked} checked, "
                f"{run.failure_count} problem(s), {run.duration_ms} ms, run {run.pk})"
            )
            for problem in run.failures:
                self.stderr.write(f"  PROBLEM {problem}")
            if run.error:
                self.stderr.write(run.error)
            bad += run.status != AuditRun.Status.PASSED
        if bad:
            raise CommandError(f"{bad} audit check(s) did not pass")
