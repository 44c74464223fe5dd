"""Read-only admin for the ledger: look, never touch (corrections are new transfers,
made through the wallet's staff adjustment)."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin
from ledger.models import Account, Transfer


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "kind",
        "owner_ref",
        "currency",
        "balance",
        "held",
        "available_display",
        "must_not_overdraw",
        "closed",
        "version",
    )
    list_filter = ("kind", "currency", "closed")
    search_fields = ("owner_ref",)

    @admin.display(description="available")
    def available_display(self, obj: Account) -> int:
        return obj.available


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "debit_account",
        "credit_account",
        "amount",
        "currency",
        "code",
        "status",
        "reference",
    )
    list_filter = ("status", "currency", "code")
    search_fields = ("id", "reference")
    list_select_related = ("debit_account", "credit_account")
