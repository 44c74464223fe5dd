"""The table path's storage: one interface (``base.TableStore``), two adapters, chosen
once by the database (:func:`table_store`)."""

from __future__ import annotations

from django.db import connection

from poker.storage.base import Done, Record, TableStore, Working
from poker.storage.embedded import EmbeddedTableStore
from poker.storage.postgres import PostgresTableStore

__all__ = ["Done", "Record", "TableStore", "Working", "table_store"]

_chosen: TableStore | None = None


def table_store() -> TableStore:
    """The adapter for the default database: PostgreSQL's raw statements there, the ORM
    elsewhere (SQLite). Chosen at the first use; one database serves the process."""
    global _chosen
    if _chosen is None:
        _chosen = (
            PostgresTableStore() if connection.vendor == "postgresql" else EmbeddedTableStore()
        )
    return _chosen
