"""The staff log in the admin: read-only (the database refuses changes anyway)."""

from __future__ import annotations

from django.contrib import admin

from backoffice.models import StaffAction
from core.admin import ReadOnlyAdmin


@admin.register(StaffAction)
class StaffActionAdmin(ReadOnlyAdmin):
    list_display = ("at", "actor", "action", "target", "subject", "reason")
    list_filter = ("action",)
    search_fields = ("target", "reason", "actor__username", "subject__username")
    date_hierarchy = "at"
