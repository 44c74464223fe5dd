"""Wallet admin: records read-only, withdrawal decisions as actions, and the staff
adjustment (a correcting ledger transfer with a mandatory reason)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.errors import DomainError
from ledger.models import Account
from wallet import services
from wallet.models import Adjustment, Deposit, IdempotencyRecord, WebhookEvent, Withdrawal


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Deposit)
class DepositAdmin(ReadOnly):
    list_display = ("id", "created_at", "user", "amount", "currency", "gateway", "status")
    list_filter = ("status", "currency", "gateway")


def _decide(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    queryset: QuerySet[Withdrawal],
    approve: bool,
) -> None:
    done = 0
    for withdrawal in queryset:
        try:
            if approve:
                services.withdrawal_approve(withdrawal_id=withdrawal.pk, staff_user=request.user)  # type: ignore[arg-type]
            else:
                services.withdrawal_reject(
                    withdrawal_id=withdrawal.pk,
                    staff_user=request.user,  # type: ignore[arg-type]
                    reason="rejected in admin",
                )
            done += 1
        except DomainError as exc:
            modeladmin.message_user(request, f"{withdrawal.pk}: {exc.message}", messages.ERROR)
    modeladmin.message_user(
        request, f"{done} withdrawal(s) {'approved' if approve else 'rejected'}."
    )


@admin.action(description="Approve selected withdrawals (pay out)")
def approve_withdrawals(
    modeladmin: Any, request: HttpRequest, queryset: QuerySet[Withdrawal]
) -> None:
    _decide(modeladmin, request, queryset, approve=True)


@admin.action(description="Reject selected withdrawals (release funds)")
def reject_withdrawals(
    modeladmin: Any, request: HttpRequest, queryset: QuerySet[Withdrawal]
) -> None:
    _decide(modeladmin, request, queryset, approve=False)


@admin.register(Withdrawal)
class WithdrawalAdmin(ReadOnly):
    list_display = ("id", "created_at", "user", "amount", "currency", "status", "decided_by")
    list_filter = ("status", "currency")
    actions = [approve_withdrawals, reject_withdrawals]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Needed for the actions; the form itself shows every field read-only.
        return bool(request.user.is_staff)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in Withdrawal._meta.fields]


class AdjustmentForm(forms.ModelForm):  # type: ignore[type-arg]
    account = forms.ModelChoiceField(queryset=Account.objects.order_by("id"))
    amount = forms.IntegerField(help_text="Minor units: positive credits, negative debits.")
    reason = forms.CharField(widget=forms.Textarea, required=True)

    class Meta:
        model = Adjustment
        fields = ["account", "amount", "reason"]


@admin.register(Adjustment)
class AdjustmentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = AdjustmentForm
    list_display = ("id", "created_at", "account", "amount", "created_by", "reason")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        # Django wraps this view in transaction.atomic(); the adjustment service is a
        # durable money movement (its own transaction), so it must not be nested.
        return self._changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: Adjustment, form: Any, change: bool) -> None:
        created = services.adjustment_create(
            staff_user=request.user,  # type: ignore[arg-type]
            account_id=form.cleaned_data["account"].pk,
            amount=form.cleaned_data["amount"],
            reason=form.cleaned_data["reason"],
        )
        obj.pk = created.pk
        obj._state.adding = False


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnly):
    list_display = ("gateway", "event_id", "event_type", "received_at")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnly):
    list_display = ("user", "endpoint", "key", "status_code", "created_at")
