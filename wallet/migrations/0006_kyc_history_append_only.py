from django.db import migrations

# The KYC history is append-only: the database refuses UPDATE and DELETE, whatever the path
# (as the staff log and the ledger's transfers).
_FORWARD = {
    "postgresql": [
        """
        CREATE OR REPLACE FUNCTION wallet_kycstatuschange_immutable() RETURNS trigger AS $$
        BEGIN
            RAISE EXCEPTION 'wallet_kycstatuschange is append-only: %% refused', TG_OP
                USING ERRCODE = 'restrict_violation';
        END;
        $$ LANGUAGE plpgsql;
        """,
        """
        CREATE TRIGGER wallet_kycstatuschange_append_only BEFORE UPDATE OR DELETE
        ON wallet_kycstatuschange FOR EACH ROW
        EXECUTE FUNCTION wallet_kycstatuschange_immutable();
        """,
    ],
    "sqlite": [
        """
        CREATE TRIGGER wallet_kycstatuschange_no_update BEFORE UPDATE ON wallet_kycstatuschange
        BEGIN SELECT RAISE(ABORT, 'wallet_kycstatuschange is append-only: UPDATE refused'); END;
        """,
        """
        CREATE TRIGGER wallet_kycstatuschange_no_delete BEFORE DELETE ON wallet_kycstatuschange
        BEGIN SELECT RAISE(ABORT, 'wallet_kycstatuschange is append-only: DELETE refused'); END;
        """,
    ],
}
_BACKWARD = {
    "postgresql": [
        "DROP TRIGGER IF EXISTS wallet_kycstatuschange_append_only ON wallet_kycstatuschange;",
        "DROP FUNCTION IF EXISTS wallet_kycstatuschange_immutable();",
    ],
    "sqlite": [
        "DROP TRIGGER IF EXISTS wallet_kycstatuschange_no_update;",
        "DROP TRIGGER IF EXISTS wallet_kycstatuschange_no_delete;",
    ],
}


def _forward(apps, schema_editor):  # type: ignore[no-untyped-def]
    for statement in _FORWARD[schema_editor.connection.vendor]:
        schema_editor.execute(statement)


def _backward(apps, schema_editor):  # type: ignore[no-untyped-def]
    for statement in _BACKWARD[schema_editor.connection.vendor]:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("wallet", "0005_play_money_reload_kyc")]

    operations = [migrations.RunPython(_forward, _backward)]
