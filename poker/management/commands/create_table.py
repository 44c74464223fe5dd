"""Creates a table from the command line (a production database's first tables), once.

Thin over the ``table_create`` service (same checks as the admin and the API). The
table's name makes its creation key (a system key: a ``TableCommand`` without a player):
run again, the command finds the table it made and
changes nothing, so it is safe in a deployment script.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from poker.commands.seating import table_create
from poker.models import TableCommand


class Command(BaseCommand):
    help = "Create a table unless this command already created one with that name."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("name")
        parser.add_argument("--variant", default="NT", help="NT, FT, PO or NS")
        parser.add_argument("--small-blind", type=int, required=True)
        parser.add_argument("--big-blind", type=int, required=True)
        parser.add_argument("--min-buy-in", type=int, required=True)
        parser.add_argument("--max-buy-in", type=int, required=True)
        parser.add_argument("--max-seats", type=int, default=6)
        parser.add_argument("--ante", type=int, default=0)
        parser.add_argument("--currency", default="CHIPS")
        parser.add_argument("--action-seconds", type=int, default=30)
        parser.add_argument("--rake-bps", type=int, default=0)
        parser.add_argument("--rake-cap", type=int, default=0)

    def handle(self, *args: Any, **o: Any) -> None:
        key = f"manage.py create_table {o['name']}"
        existed = TableCommand.objects.filter(player=None, key=key).exists()
        try:
            table = table_create(
                name=o["name"],
                variant=o["variant"],
                small_blind=o["small_blind"],
                big_blind=o["big_blind"],
                min_buy_in=o["min_buy_in"],
                max_buy_in=o["max_buy_in"],
                max_seats=o["max_seats"],
                ante=o["ante"],
                currency=o["currency"],
                action_seconds=o["action_seconds"],
                rake_bps=o["rake_bps"],
                rake_cap=o["rake_cap"],
                key=key,
            )
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc}") from exc
        verb = "exists" if existed else "created"
        self.stdout.write(f"Table {verb}: {table.pk} {table}")
