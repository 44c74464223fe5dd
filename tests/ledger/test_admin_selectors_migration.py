"""Ledger admin (read-only), selectors, and the trigger migration's reversal."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection, transaction

from ledger.models import Account
from ledger.selectors import account_get, accounts_of_owner, transfers_of_accounts
from ledger.services import ledger_post_transfers
from tests.support.ledger import reload, transfer
from wallet.amounts import money_format


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="root", password="pw", email="")
    client.force_login(user)
    return client


def test_the_ledger_admin_shows_balances_and_refuses_edits(admin_client, account):
    a = account(1234)
    listing = admin_client.get("/admin/ledger/account/")
    assert listing.status_code == 200 and money_format(1234, a.currency).encode() in listing.content
    assert admin_client.get("/admin/ledger/transfer/").status_code == 200
    assert admin_client.get("/admin/ledger/account/add/").status_code == 403
    assert admin_client.post(f"/admin/ledger/account/{a.pk}/delete/").status_code == 403
    detail = admin_client.get(f"/admin/ledger/account/{a.pk}/change/")
    assert detail.status_code == 200 and b'name="_save"' not in detail.content
    assert money_format(1234, a.currency).encode() in detail.content


def test_selectors_read_accounts_and_history_newest_first(account):
    a, b = account(100), account()
    first = ledger_post_transfers(transfers=[transfer(a, b, 1)]).transfers[0]
    second = ledger_post_transfers(transfers=[transfer(b, a, 1)]).transfers[0]
    assert account_get(account_id=a.pk) == a and account_get(account_id=10**12) is None
    assert list(accounts_of_owner(owner_ref=a.owner_ref)) == [a]
    assert list(accounts_of_owner(owner_ref=a.owner_ref, kind="house_rake")) == []
    ids = [t.id for t in transfers_of_accounts(account_ids=[b.pk])]
    assert ids == [second.id, first.id]


def test_the_trigger_migration_reverses_and_reapplies(account):
    a = account(10)
    migration = importlib.import_module("ledger.migrations.0002_immutability_triggers")
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending FK checks before DDL
        with connection.schema_editor(atomic=False) as editor:
            migration.backward(None, editor)
        with connection.cursor() as cursor:
            cursor.execute("UPDATE ledger_account SET balance = 11 WHERE id = %s", [a.pk])
        assert reload(a).balance == 11
        transaction.set_rollback(True)
    assert reload(a).balance == 10
    assert isinstance(a, Account)
