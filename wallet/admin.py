"""Wallet admin: records read-only (withdrawals link their staff review page, where they
are decided), and the staff adjustment (a correcting ledger transfer with a mandatory
reason)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from core.admin import DurableServiceAdmin
from core.admin import ReadOnlyAdmin as ReadOnly
from core.errors import DomainError
from ledger.models import Account, Transfer
from staff.roles import staff_has
from wallet import services
from wallet.admin_columns import money_column
from wallet.amounts import PLAY_MONEY, money_format
from wallet.kyc import kyc_status_set
from wallet.models import (
    Adjustment,
    Correction,
    Deposit,
    DepositLimit,
    DepositLimitChange,
    KycStatus,
    KycStatusChange,
    PlayMoneyReload,
    Restriction,
    WebhookEvent,
    Withdrawal,
)
from wallet.restrictions import restriction_lift


class AmountShown(ReadOnly):
    """Rows with an ``amount`` in minor units of their ``currency``: the list and the
    detail show it in the currency's units ("€50.00"), like the players' pages."""

    amount_shown = staticmethod(money_column("amount"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*super().get_readonly_fields(request, obj), "amount_shown"]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        fields = [f for f in super().get_fields(request, obj) if f != "amount_shown"]
        return ["amount_shown" if f == "amount" else f for f in fields]


@admin.register(Deposit)
class DepositAdmin(AmountShown):
    list_display = ("id", "created_at", "user", "amount_shown", "currency", "gateway", "status")
    list_filter = ("status", "currency", "gateway")


@admin.register(Withdrawal)
class WithdrawalAdmin(AmountShown):
    """Read-only: each withdrawal is decided on its staff review page (a reason, the
    player's figures and the four-eyes rule), never in bulk."""

    list_display = (
        "id",
        "created_at",
        "user",
        "amount_shown",
        "currency",
        "status",
        "first_approved_by",
        "decided_by",
        "review",
    )
    list_filter = ("status", "currency")

    @admin.display(description="Review")
    def review(self, obj: Withdrawal) -> str:
        return format_html(
            '<a href="{}">Review</a>', reverse("backoffice:withdrawal", args=[obj.pk])
        )


class AdjustmentForm(forms.ModelForm):  # type: ignore[type-arg]  # django-stubs: generic in the model
    account = forms.ModelChoiceField(queryset=Account.objects.order_by("id"))
    amount = forms.IntegerField(help_text="Minor units: positive credits, negative debits.")
    reason = forms.CharField(widget=forms.Textarea, required=True)

    class Meta:
        model = Adjustment
        fields = ["account", "amount", "reason"]


@admin.register(Adjustment)
class AdjustmentAdmin(DurableServiceAdmin):
    form = AdjustmentForm
    list_display = (
        "id",
        "created_at",
        "account",
        money_column("amount", currency="account.currency"),
        "created_by",
        "reason",
    )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Adjustment, form: Any, change: bool) -> None:
        created = services.adjustment_create(
            staff_user=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
            account_id=form.cleaned_data["account"].pk,
            amount=form.cleaned_data["amount"],
            reason=form.cleaned_data["reason"],
        )
        obj.pk = created.pk
        obj._state.adding = False


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnly):
    list_display = ("gateway", "event_id", "event_type", "received_at")


@admin.register(Correction)
class CorrectionAdmin(AmountShown):
    list_display = (
        "id",
        "created_at",
        "from_account",
        "to_account",
        "amount_shown",
        "currency",
        "created_by",
        "reason",
    )


@admin.register(DepositLimit)
class DepositLimitAdmin(ReadOnly):
    """A player's own deposit limits (set by the player only; staff read them)."""

    list_display = (
        "user",
        "currency",
        "period",
        money_column("amount"),
        money_column("pending_amount"),
        "pending_from",
        "updated_at",
    )
    list_filter = ("currency", "period")
    search_fields = ("user__username", "=user__id")
    list_select_related = ("user",)
    readonly_fields = (
        "user",
        "currency",
        "period",
        money_column("amount"),
        money_column("pending_amount"),
        "pending_from",
        "updated_at",
        "history",
    )
    fields = readonly_fields

    @admin.display(description="History (newest first)")
    def history(self, obj: DepositLimit) -> str:
        rows = DepositLimitChange.objects.filter(
            user_id=obj.user_id, currency=obj.currency, period=obj.period
        ).select_related("created_by")
        return (
            "\n".join(
                f"{c.created_at:%Y-%m-%d %H:%M} {c.created_by}: "
                f"{_or_none(c.old_amount, c.currency)} -> {_or_none(c.new_amount, c.currency)} "
                f"from {c.effective_from:%Y-%m-%d %H:%M}"
                for c in rows
            )
            or "-"
        )


def _or_none(amount: int | None, currency: str) -> str:
    return "no limit" if amount is None else money_format(amount, currency)


@admin.register(DepositLimitChange)
class DepositLimitChangeAdmin(ReadOnly):
    list_display = (
        "created_at",
        "user",
        "currency",
        "period",
        money_column("old_amount"),
        money_column("new_amount"),
        "effective_from",
        "created_by",
    )
    list_filter = ("currency", "period")
    search_fields = ("user__username", "=user__id")
    list_select_related = ("user", "created_by")


class LiftForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=4000)


@admin.register(Restriction)
class RestrictionAdmin(ReadOnly):
    """Holds on accounts; staff lift one with a reason (the row keeps who and why)."""

    list_display = (
        "id",
        "user",
        "kind",
        "source",
        "created_at",
        "ends_at",
        "created_by",
        "lifted_at",
        "lifted_by",
    )
    list_filter = ("kind", ("lifted_at", admin.EmptyFieldListFilter))
    search_fields = ("user__username", "=user__id", "source")
    list_select_related = ("user", "created_by", "lifted_by")
    readonly_fields = (
        "user",
        "kind",
        "source",
        "reason",
        "created_at",
        "ends_at",
        "created_by",
        "lifted_at",
        "lifted_by",
        "lift_reason",
    )

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<id:restriction_id>/lift/",
                self.admin_site.admin_view(self.lift_view),
                name="wallet_restriction_lift",
            )
        ]
        return own + super().get_urls()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        restriction = Restriction.objects.filter(pk=object_id).first()
        extra = {
            "lift_url": reverse("admin:wallet_restriction_lift", args=[object_id])
            if restriction is not None
            and restriction.lifted_at is None
            and staff_has(request.user, "wallet.lift_restriction")
            else None
        }
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **extra})

    def lift_view(self, request: HttpRequest, restriction_id: int) -> HttpResponse:
        if not staff_has(request.user, "wallet.lift_restriction"):
            raise PermissionDenied
        form = LiftForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                restriction_lift(
                    restriction_id=restriction_id,
                    by=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
                    reason=form.cleaned_data["reason"],
                )
            except DomainError as error:
                form.add_error(None, error.message)
            else:
                self.message_user(request, f"Restriction {restriction_id} lifted.")
                return HttpResponseRedirect(reverse("admin:wallet_restriction_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Lift restriction {restriction_id}",
            "form": form,
        }
        return TemplateResponse(request, "admin/wallet/restriction/lift.html", context)


@admin.register(PlayMoneyReload)
class PlayMoneyReloadAdmin(ReadOnly):
    list_display = ("id", "created_at", "user", "amount_shown", "transfer_id")
    search_fields = ("user__username", "=user__id")

    @admin.display(description="amount", ordering="amount")
    def amount_shown(self, obj: PlayMoneyReload) -> str:
        return money_format(obj.amount, PLAY_MONEY)


class KycStatusForm(forms.ModelForm):  # type: ignore[type-arg]  # django-stubs: generic in the model
    new_status = forms.ChoiceField(choices=KycStatus.Status.choices, label="Set status to")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=4000)

    class Meta:
        model = KycStatus
        fields = ["user"]


@admin.register(KycStatus)
class KycStatusAdmin(DurableServiceAdmin):
    """A player's KYC status with its history; staff change it with a reason (history row
    and staff log ``kyc.set``, by ``kyc_status_set``)."""

    form = KycStatusForm
    list_display = ("user", "status", "updated_at")
    list_filter = ("status",)
    search_fields = ("user__username", "=user__id")
    list_select_related = ("user",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("user", "status", "note", "updated_at", "history") if obj else ()

    @admin.display(description="History (newest first)")
    def history(self, obj: KycStatus) -> str:
        changes = KycStatusChange.objects.filter(user_id=obj.user_id).select_related("changed_by")
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{} → {}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    f"{c.created_at:%Y-%m-%d %H:%M:%S}",
                    c.old_status,
                    c.new_status,
                    c.changed_by.get_username(),
                    c.reason,
                )
                for c in changes
            ),
        )
        return format_html(
            "<table><thead><tr><th>When (UTC)</th><th>Change</th><th>By</th><th>Reason</th>"
            "</tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: KycStatus, form: Any, change: bool) -> None:
        saved = kyc_status_set(
            staff_user=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
            user_id=obj.user_id,
            status=form.cleaned_data["new_status"],
            reason=form.cleaned_data["reason"],
        )
        obj.pk = saved.pk
        obj._state.adding = False


# --- The ledger, read here: its amounts in currency units like every staff page (the
# formatter is the wallet's, above the ledger in the layers). Look, never touch: a
# correction is a new transfer (the adjustment above). ---------------------------------


@admin.register(Account)
class AccountAdmin(ReadOnly):
    balance_shown = staticmethod(money_column("balance"))
    held_shown = staticmethod(money_column("held"))
    #: The detail shows what the list does, but the id (in its title).
    fields = readonly_fields = (
        "kind",
        "owner_ref",
        "currency",
        "balance_shown",
        "held_shown",
        "available_shown",
        "must_not_overdraw",
        "closed",
        "version",
    )
    list_display = ("id", *fields)
    list_filter = ("kind", "currency", "closed")
    search_fields = ("owner_ref",)

    @admin.display(description="available")
    def available_shown(self, obj: Account) -> str:
        return money_format(obj.available, obj.currency)


@admin.register(Transfer)
class TransferAdmin(AmountShown):
    list_display = (
        "id",
        "created_at",
        "debit_account",
        "credit_account",
        "amount_shown",
        "currency",
        "code",
        "status",
        "reference",
    )
    list_filter = ("status", "currency", "code")
    search_fields = ("id", "reference")
    list_select_related = ("debit_account", "credit_account")
