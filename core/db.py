"""Database helpers shared by the apps: their hot paths' raw statements, and their
migrations' append-only triggers."""

from __future__ import annotations

from typing import Any

import orjson
import psycopg
from django.db import connection, migrations
from psycopg import pq


def on_postgres() -> bool:
    """Whether Django's connection is PostgreSQL (the hot paths' raw statements run there;
    elsewhere, e.g. SQLite for ``make run`` on a bare machine, the same effects go
    through the ORM)."""
    return connection.vendor == "postgresql"


def pg_cursor() -> psycopg.Cursor[Any]:
    """A psycopg cursor with server-side binding on Django's own connection (same
    transaction). Statements run with ``prepare=True`` (which needs the
    ``prepare_threshold`` set in ``config/settings.py``) are parsed and planned once per
    connection. Wrap its use in ``connection.wrap_database_errors`` to keep Django's
    exception types (``IntegrityError``...).

    Opens the connection when it is closed: an ASGI server closes a thread's connection
    after each request, and a raw statement may be the first of the next one."""
    if connection.connection is None:
        connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def run_prepared(sql: str, params: dict[str, Any]) -> tuple[Any, ...] | None:
    """Runs one prepared statement on PostgreSQL, in the caller's transaction, with
    Django's exception types; returns its first row (None without one)."""
    with connection.wrap_database_errors, pg_cursor() as cursor:
        cursor.execute(sql, params, prepare=True)
        # The result's status, not ``cursor.description``, which builds a Column per field.
        result = cursor.pgresult
        return cursor.fetchone() if result and result.status == pq.ExecStatus.TUPLES_OK else None


def json_param(value: Any) -> str:
    """``value`` as a JSON text parameter (for ``::jsonb``), datetimes in RFC 3339.

    orjson, because every command encodes several of these (8x faster than ``json``).
    Never use it where bytes are hashed (the event and request hashes): those keep
    their own canonical encoding."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def append_only_trigger_sql(table: str, vendor: str) -> tuple[list[str], list[str]]:
    """(forward, backward) SQL making ``table`` refuse UPDATE and DELETE.

    The refusal lives in the database so that no code path -- an admin action, a shell
    session, a buggy service -- can rewrite history; corrections are new rows.
    TRUNCATE is left to the table owner on purpose: it is how the test runner resets
    databases, and in production the application's role should not own the tables.
    """
    if vendor == "postgresql":
        forward = [
            f"""
            CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION '{table} is append-only: %% refused', TG_OP
                    USING ERRCODE = 'restrict_violation';
            END;
            $$ LANGUAGE plpgsql;
            """,
            f"""
            CREATE TRIGGER {table}_no_update_delete BEFORE UPDATE OR DELETE ON {table}
            FOR EACH ROW EXECUTE FUNCTION {table}_append_only();
            """,
        ]
        backward = [
            f"DROP TRIGGER IF EXISTS {table}_no_update_delete ON {table};",
            f"DROP FUNCTION IF EXISTS {table}_append_only();",
        ]
    elif vendor == "sqlite":
        forward = [
            f"""
            CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table}
            BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END;
            """
            for op in ("UPDATE", "DELETE")
        ]
        backward = [f"DROP TRIGGER IF EXISTS {table}_no_{op};" for op in ("update", "delete")]
    else:  # pragma: no cover - only PostgreSQL and SQLite are supported
        raise NotImplementedError(f"no append-only trigger for {vendor}")
    return forward, backward


def AppendOnly(table: str) -> migrations.RunPython:
    """A migration operation installing the append-only triggers for the current vendor."""

    def forward(apps: Any, schema_editor: Any) -> None:
        for sql in append_only_trigger_sql(table, schema_editor.connection.vendor)[0]:
            schema_editor.execute(sql)

    def backward(apps: Any, schema_editor: Any) -> None:
        for sql in append_only_trigger_sql(table, schema_editor.connection.vendor)[1]:
            schema_editor.execute(sql)

    return migrations.RunPython(forward, backward)
