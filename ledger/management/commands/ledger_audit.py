"""``manage.py ledger_audit``: prints the audit report; exits 1 on any discrepancy."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand

from ledger.audit import ledger_audit


class Command(BaseCommand):
    help = "Check the ledger: conservation, cached balances, overdrafts. Exit 1 on a problem."

    def handle(self, *args: Any, **options: Any) -> None:
        report = ledger_audit()
        if report.ok:
            self.stdout.write(report.render())
            return
        self.stderr.write(report.render())
        sys.exit(1)
