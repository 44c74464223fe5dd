"""`manage.py verify_event_store`: hash chains intact, finished hands match the ledger."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from handhistory.verification import verify_chains, verify_settlements


class Command(BaseCommand):
    help = "Verify every event stream's hash chain and every finished hand's settlement."

    def handle(self, *args: Any, **options: Any) -> None:
        streams, chain_problems = verify_chains()
        hands, settlement_problems = verify_settlements()
        problems = chain_problems + settlement_problems
        for problem in problems:
            self.stderr.write(f"PROBLEM {problem}")
        self.stdout.write(
            f"Checked {streams} streams and {hands} finished hands: "
            f"{len(chain_problems)} chain problem(s), {len(settlement_problems)} settlement problem(s)."
        )
        if problems:
            raise CommandError("event store verification FAILED")
        self.stdout.write("Event store OK.")
