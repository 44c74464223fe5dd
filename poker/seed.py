"""Demo seed step: one play-money table of each variant (idempotent by name)."""

from __future__ import annotations

from typing import Any

from poker.commands.seating import table_create
from poker.models import Table

# A table, one row per line: the formatter leaves it as written (fmt: skip).
DEMO_TABLES: tuple[dict[str, Any], ...] = (
    {"name": "Demo Hold'em 50/100", "variant": "NT", "small_blind": 50, "big_blind": 100,
     "min_buy_in": 2_000, "max_buy_in": 20_000, "max_seats": 6, "rake_bps": 500, "rake_cap": 300},
    {"name": "Demo Limit Hold'em 100/200", "variant": "FT", "small_blind": 50, "big_blind": 100,
     "min_buy_in": 2_000, "max_buy_in": 20_000, "max_seats": 9},
    {"name": "Demo PLO 50/100", "variant": "PO", "small_blind": 50, "big_blind": 100,
     "min_buy_in": 4_000, "max_buy_in": 20_000, "max_seats": 6, "rake_bps": 500, "rake_cap": 300},
    {"name": "Demo Short Deck ante 100", "variant": "NS", "small_blind": 0, "big_blind": 100,
     "ante": 100, "button_blind": 100, "min_buy_in": 2_000, "max_buy_in": 20_000, "max_seats": 6},
)  # fmt: skip


def seed_demo_tables(command: Any) -> None:
    """Creates the demo tables that do not exist yet."""
    for spec in DEMO_TABLES:
        if Table.objects.filter(name=spec["name"]).exists():
            command.stdout.write(f"Demo table {spec['name']!r} exists")
            continue
        table = table_create(**spec)
        command.stdout.write(f"Demo table created: {table}")
