"""The wallet's request and response shapes, for the OpenAPI schema.

The views build their JSON with the plain functions in ``wallet.api`` (and validate values
in the services); these serializers describe exactly that JSON so the schema and the
documentation stay true, and the request ones refuse unknown fields (``StrictSerializer``).
Amounts are integer minor units.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from core.serializers import StrictCharField, StrictSerializer
from ledger.models import TransferStatus
from wallet.models import Deposit, Withdrawal


class WalletErrorSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """Every error: ``{"code", "message", "extra"}``."""

    code = serializers.CharField()
    message = serializers.CharField()
    extra = serializers.DictField()


class MoneyRequestSerializer(StrictSerializer):
    amount = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="Integer minor units."
    )
    currency = serializers.ChoiceField(
        choices=settings.WALLET_CURRENCIES, help_text="One of the configured wallet currencies."
    )
    gateway = serializers.CharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        help_text="Payment gateway name; the configured default when omitted, empty or null.",
    )


class DecisionRequestSerializer(StrictSerializer):
    """A staff decision on a withdrawal: approving and rejecting both say why."""

    reason = StrictCharField(
        max_length=255, help_text="Why (kept with the withdrawal and in the staff log)."
    )


class CancelRequestSerializer(StrictSerializer):
    """Cancelling takes no fields: the body is ``{}`` or empty."""


class BalanceSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    currency = serializers.CharField()
    balance = serializers.IntegerField(help_text="Posted balance.")
    held = serializers.IntegerField(help_text="Held by pending withdrawals.")
    available = serializers.IntegerField(help_text="balance - held: what can be spent now.")


class WalletSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    balances = BalanceSerializer(many=True, help_text="One row per configured currency.")


class DepositSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.UUIDField()
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    gateway = serializers.CharField()
    status = serializers.ChoiceField(choices=Deposit.Status.choices)
    transfer_id = serializers.UUIDField(
        allow_null=True, help_text="The ledger transfer that credited it (once confirmed)."
    )
    created_at = serializers.DateTimeField()


class WithdrawalSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.UUIDField()
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    gateway = serializers.CharField()
    status = serializers.ChoiceField(choices=Withdrawal.Status.choices)
    hold_transfer_id = serializers.UUIDField(help_text="The pending transfer holding the funds.")
    resolution_transfer_id = serializers.UUIDField(
        allow_null=True, help_text="The transfer that paid out or released the hold."
    )
    reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class TransactionSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.UUIDField()
    created_at = serializers.DateTimeField()
    code = serializers.CharField(help_text="What moved the money: deposit, withdrawal, buy_in...")
    status = serializers.ChoiceField(choices=TransferStatus.choices)
    currency = serializers.CharField()
    amount = serializers.IntegerField(help_text="Signed: positive in, negative out.")
    reference = serializers.CharField(allow_blank=True)
    pending_id = serializers.UUIDField(
        allow_null=True, help_text="The hold this transfer resolves, if any."
    )


class WebhookEventDataSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    deposit_id = serializers.UUIDField()
    amount = serializers.IntegerField()
    currency = serializers.CharField()


class WebhookEventSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """The body of an HMAC-signed gateway event (``wallet.gateways.HmacWebhookGateway``)."""

    id = serializers.CharField(help_text="The gateway's event id (recorded once).")
    type = serializers.CharField(help_text="deposit.succeeded or deposit.failed.")
    created = serializers.IntegerField(help_text="Unix time; stale events are refused.")
    # A field named like Serializer.data: DRF's metaclass moves it into _declared_fields.
    data = WebhookEventDataSerializer()  # type: ignore[assignment]  # a nested serializer in place of a field, as DRF allows


class WebhookOutcomeSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    status = serializers.ChoiceField(choices=["processed", "duplicate", "ignored"])


# --- responsible gaming (wallet.api_responsible) ----------------------------------------------


class LimitRequestSerializer(StrictSerializer):
    currency = serializers.ChoiceField(
        choices=[c for c in settings.WALLET_CURRENCIES if c != "CHIPS"],
        help_text="A real currency (play money has no deposits to limit).",
    )
    period = serializers.ChoiceField(
        choices=["day", "week", "month"], help_text="Rolling 24 hours, 7 days or 30 days."
    )
    amount = serializers.IntegerField(
        min_value=1,
        max_value=2**63 - 1,
        allow_null=True,
        help_text="The limit in integer minor units; null removes it (after the delay).",
    )


class PendingLimitSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    amount = serializers.IntegerField(allow_null=True, help_text="null: the limit goes.")
    # "from" is a Python keyword: declared under another name, renamed in the schema.
    from_ = serializers.DateTimeField(help_text="When the change holds.")

    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]  # drf-stubs: generic in the instance
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class LimitSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    currency = serializers.CharField()
    period = serializers.CharField()
    limit = serializers.IntegerField(allow_null=True, help_text="In force now; null: none.")
    pending = PendingLimitSerializer(allow_null=True, help_text="A raise or removal waiting.")
    used = serializers.IntegerField(help_text="Deposits (pending or confirmed) in the window.")
    remaining = serializers.IntegerField(allow_null=True, help_text="null: no limit.")


class LimitChangeSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    currency = serializers.CharField()
    period = serializers.CharField()
    amount = serializers.IntegerField(allow_null=True)
    immediate = serializers.BooleanField(help_text="Whether it holds already.")
    effective_from = serializers.DateTimeField()


class LimitsSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    limits = LimitSerializer(many=True, help_text="One row per real currency and period.")


class LimitsChangedSerializer(LimitsSerializer):
    change = LimitChangeSerializer()


class TimeoutRequestSerializer(StrictSerializer):
    hours = serializers.IntegerField(min_value=24, max_value=1008, help_text="24 to 1008.")


class SelfExclusionRequestSerializer(StrictSerializer):
    months = serializers.IntegerField(min_value=6, max_value=120, help_text="6 to 120.")


class OwnRestrictionSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["time_out", "self_exclusion"])
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(
        help_text="A time-out ends then; a self-exclusion holds at least until then, then "
        "until support lifts it."
    )
    lifted_by_staff_only = serializers.BooleanField()


class OwnRestrictionsSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    restrictions = OwnRestrictionSerializer(many=True)
