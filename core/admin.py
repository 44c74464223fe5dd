"""Admin pieces shared by the apps."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_protect

from core.models import IdempotencyRecord


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # django-stubs: generic in the model
    """Rows staff may look at but never add, change or delete here (records of what
    happened: history, money, reviews); changes go through the services."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class DurableServiceAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # django-stubs: generic in the model
    """An admin whose form saves through a service that runs its own durable transaction
    (money, KYC): Django wraps the form view in ``transaction.atomic()``, in which such a
    service refuses to run, so the view runs unwrapped; the service is the only write."""

    @method_decorator(csrf_protect)
    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        return self._changeform_view(request, object_id, form_url, extra_context)  # type: ignore[attr-defined]  # a private method of Django's admin, not in the stubs


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("user", "endpoint", "key", "status_code", "created_at")
