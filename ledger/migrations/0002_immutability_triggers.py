"""Database-level guards: the ledger refuses to be rewritten, whatever the code path.

* transfers: UPDATE and DELETE refused (corrections are new transfers);
* accounts: DELETE refused; opened with zero balances; currency/kind/owner fixed;
  balance/held change only with ``version`` going up by exactly one, and on PostgreSQL
  only inside the posting core's statement (the transaction-local ``ledger.posting``
  setting it opens and closes);
* PostgreSQL: (account, currency) foreign keys, so a transfer in another currency than
  its accounts cannot be stored; SQLite does the same with an insert trigger.

TRUNCATE is left alone: it needs table ownership (a DBA act, not an application path)
and it is how the test framework resets its database.
"""

from typing import Any

from django.db import migrations

POSTGRES_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION ledger_transfer_immutable() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'ledger_transfer is immutable: %% refused', TG_OP
            USING ERRCODE = 'restrict_violation';
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE TRIGGER ledger_transfer_no_update_delete BEFORE UPDATE OR DELETE
    ON ledger_transfer FOR EACH ROW EXECUTE FUNCTION ledger_transfer_immutable();
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_account_guard() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' THEN
            RAISE EXCEPTION 'ledger_account rows are never deleted'
                USING ERRCODE = 'restrict_violation';
        END IF;
        IF TG_OP = 'INSERT' THEN
            IF NEW.balance <> 0 OR NEW.held <> 0 OR NEW.version <> 0 THEN
                RAISE EXCEPTION 'ledger_account opens with zero balances'
                    USING ERRCODE = 'restrict_violation';
            END IF;
            RETURN NEW;
        END IF;
        IF NEW.currency <> OLD.currency OR NEW.kind <> OLD.kind
           OR NEW.owner_ref <> OLD.owner_ref OR NEW.id <> OLD.id THEN
            RAISE EXCEPTION 'ledger_account identity is immutable'
                USING ERRCODE = 'restrict_violation';
        END IF;
        IF (NEW.balance <> OLD.balance OR NEW.held <> OLD.held OR NEW.version <> OLD.version)
           AND (NEW.version <> OLD.version + 1
                OR COALESCE(current_setting('ledger.posting', true), '') <> 'on') THEN
            RAISE EXCEPTION 'ledger_account balances change only through the posting core'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE TRIGGER ledger_account_guard BEFORE INSERT OR UPDATE OR DELETE
    ON ledger_account FOR EACH ROW EXECUTE FUNCTION ledger_account_guard();
    """,
    """
    ALTER TABLE ledger_transfer ADD CONSTRAINT ledger_transfer_debit_currency_fk
    FOREIGN KEY (debit_account_id, currency) REFERENCES ledger_account (id, currency);
    """,
    """
    ALTER TABLE ledger_transfer ADD CONSTRAINT ledger_transfer_credit_currency_fk
    FOREIGN KEY (credit_account_id, currency) REFERENCES ledger_account (id, currency);
    """,
]

POSTGRES_BACKWARD = [
    "ALTER TABLE ledger_transfer DROP CONSTRAINT IF EXISTS ledger_transfer_credit_currency_fk;",
    "ALTER TABLE ledger_transfer DROP CONSTRAINT IF EXISTS ledger_transfer_debit_currency_fk;",
    "DROP TRIGGER IF EXISTS ledger_account_guard ON ledger_account;",
    "DROP FUNCTION IF EXISTS ledger_account_guard();",
    "DROP TRIGGER IF EXISTS ledger_transfer_no_update_delete ON ledger_transfer;",
    "DROP FUNCTION IF EXISTS ledger_transfer_immutable();",
]

SQLITE_FORWARD = [
    """
    CREATE TRIGGER ledger_transfer_no_update BEFORE UPDATE ON ledger_transfer
    BEGIN SELECT RAISE(ABORT, 'ledger_transfer is immutable: UPDATE refused'); END;
    """,
    """
    CREATE TRIGGER ledger_transfer_no_delete BEFORE DELETE ON ledger_transfer
    BEGIN SELECT RAISE(ABORT, 'ledger_transfer is immutable: DELETE refused'); END;
    """,
    """
    CREATE TRIGGER ledger_transfer_currency BEFORE INSERT ON ledger_transfer
    WHEN NEW.currency IS NOT (SELECT currency FROM ledger_account WHERE id = NEW.debit_account_id)
      OR NEW.currency IS NOT (SELECT currency FROM ledger_account WHERE id = NEW.credit_account_id)
    BEGIN SELECT RAISE(ABORT, 'ledger_transfer currency differs from its accounts'); END;
    """,
    """
    CREATE TRIGGER ledger_account_no_delete BEFORE DELETE ON ledger_account
    BEGIN SELECT RAISE(ABORT, 'ledger_account rows are never deleted'); END;
    """,
    """
    CREATE TRIGGER ledger_account_opens_empty BEFORE INSERT ON ledger_account
    WHEN NEW.balance <> 0 OR NEW.held <> 0 OR NEW.version <> 0
    BEGIN SELECT RAISE(ABORT, 'ledger_account opens with zero balances'); END;
    """,
    """
    CREATE TRIGGER ledger_account_identity BEFORE UPDATE ON ledger_account
    WHEN NEW.currency <> OLD.currency OR NEW.kind <> OLD.kind
      OR NEW.owner_ref <> OLD.owner_ref OR NEW.id <> OLD.id
    BEGIN SELECT RAISE(ABORT, 'ledger_account identity is immutable'); END;
    """,
    """
    CREATE TRIGGER ledger_account_money BEFORE UPDATE ON ledger_account
    WHEN (NEW.balance <> OLD.balance OR NEW.held <> OLD.held OR NEW.version <> OLD.version)
      AND NEW.version <> OLD.version + 1
    BEGIN SELECT RAISE(ABORT, 'ledger_account balances change only through the posting core'); END;
    """,
]

SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {name};"
    for name in (
        "ledger_transfer_no_update",
        "ledger_transfer_no_delete",
        "ledger_transfer_currency",
        "ledger_account_no_delete",
        "ledger_account_opens_empty",
        "ledger_account_identity",
        "ledger_account_money",
    )
]

SQL = {
    "postgresql": (POSTGRES_FORWARD, POSTGRES_BACKWARD),
    "sqlite": (SQLITE_FORWARD, SQLITE_BACKWARD),
}


def forward(apps: Any, schema_editor: Any) -> None:
    for statement in SQL[schema_editor.connection.vendor][0]:
        schema_editor.execute(statement)


def backward(apps: Any, schema_editor: Any) -> None:
    for statement in SQL[schema_editor.connection.vendor][1]:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_accounts_and_transfers")]

    operations = [migrations.RunPython(forward, backward)]
