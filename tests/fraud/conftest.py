"""Fixtures of the fraud tests: funded players and tables, shared with the table tests."""

from tests.poker.conftest import player, table

__all__ = ["player", "table"]
