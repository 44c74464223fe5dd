"""Database helpers shared by the apps' migrations."""

from __future__ import annotations

from typing import Any

from django.db import migrations


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
