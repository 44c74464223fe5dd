"""The staff log in the admin: read-only (the database refuses changes anyway)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.urls import reverse
from django.utils.html import format_html

from backoffice.admin_login import ThrottledAdminAuthenticationForm
from core.admin import ReadOnlyAdmin
from staff.models import StaffAction

# The admin's login counts failures and refuses past the allowance like the site's others.
admin.site.login_form = ThrottledAdminAuthenticationForm


@admin.register(StaffAction)
class StaffActionAdmin(ReadOnlyAdmin):
    list_display = ("at", "actor", "action", "target", "subject", "reason")
    list_filter = ("action",)
    search_fields = ("target", "reason", "actor__username", "subject__username")
    date_hierarchy = "at"


User = get_user_model()


class StaffUserAdmin(UserAdmin):  # type: ignore[type-arg]  # django-stubs: generic in the model
    """Django's user admin with the way to the player's staff profile (balances, limits,
    sessions, hands, flags and the staff log about them)."""

    list_display = (*UserAdmin.list_display, "profile_link")
    readonly_fields = (*UserAdmin.readonly_fields, "profile_link")
    fieldsets = ((None, {"fields": ("profile_link",)}), *(UserAdmin.fieldsets or ()))

    @admin.display(description="Staff profile")
    def profile_link(self, obj: Any) -> str:
        if obj is None or obj.pk is None:
            return "-"
        url = reverse("backoffice:player", args=[obj.pk])
        return format_html('<a href="{}" data-testid="profile-link">profile</a>', url)


admin.site.unregister(User)
admin.site.register(User, StaffUserAdmin)
