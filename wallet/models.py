"""Player-money records on top of the ledger (the money itself lives in ledger transfers)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Deposit(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending (awaiting the gateway)"
        CONFIRMED = "confirmed", "Confirmed"
        FAILED = "failed", "Failed"

    # Derived from the client's Idempotency-Key: a retried request finds its deposit.
    id = models.UUIDField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=8)
    gateway = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    transfer_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_deposit_amount_gt_0")
        ]
        # The player's list (newest first) and the rolling per-player deposit sum.
        indexes = [models.Index(fields=["user", "created_at"], name="wallet_dep_user_time")]

    def __str__(self) -> str:
        return f"deposit {self.id} {self.amount} {self.currency} {self.status}"


class Withdrawal(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending (funds held)"
        APPROVED = "approved", "Approved (paid out)"
        REJECTED = "rejected", "Rejected (funds released)"

    id = models.UUIDField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=8)
    gateway = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    hold_transfer_id = models.UUIDField()
    resolution_transfer_id = models.UUIDField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Deciding a withdrawal pays money out or releases it: not a plain model change.
        permissions = [("approve_withdrawal", "Can approve or reject withdrawals")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_withdrawal_amount_gt_0")
        ]
        indexes = [
            models.Index(fields=["user", "currency", "created_at"], name="wallet_wd_user_day"),
            # The player's list, newest first.
            models.Index(fields=["user", "created_at"], name="wallet_wd_user_time"),
        ]

    def __str__(self) -> str:
        return f"withdrawal {self.id} {self.amount} {self.currency} {self.status}"


class WebhookEvent(models.Model):
    """Every gateway event processed, once: a replayed event id is a no-op."""

    gateway = models.CharField(max_length=32)
    event_id = models.CharField(max_length=128)
    event_type = models.CharField(max_length=64)
    payload = models.JSONField()
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["gateway", "event_id"], name="wallet_webhook_once")
        ]

    def __str__(self) -> str:
        return f"{self.gateway}:{self.event_id}"


class Adjustment(models.Model):
    """A staff correction: a new ledger transfer, with who did it and why."""

    id = models.UUIDField(primary_key=True)
    account = models.ForeignKey("ledger.Account", on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField(help_text="Positive credits the account, negative debits it.")
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    transfer_id = models.UUIDField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="wallet_adjustment_nonzero"),
            models.CheckConstraint(condition=~Q(reason=""), name="wallet_adjustment_has_reason"),
        ]

    def __str__(self) -> str:
        return f"adjustment {self.amount} on {self.account_id}"


class Correction(models.Model):
    """Money moved back from one player to another by staff (e.g. after confirmed chip
    dumping): one ledger transfer between their cash accounts, with who did it and why."""

    id = models.UUIDField(primary_key=True)
    from_account = models.ForeignKey("ledger.Account", on_delete=models.PROTECT, related_name="+")
    to_account = models.ForeignKey("ledger.Account", on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=8)
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    transfer_id = models.UUIDField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_correction_amount_gt_0"),
            models.CheckConstraint(condition=~Q(reason=""), name="wallet_correction_has_reason"),
        ]

    def __str__(self) -> str:
        return (
            f"correction {self.amount} {self.currency} {self.from_account_id}->{self.to_account_id}"
        )


class IdempotencyRecord(models.Model):
    """A stored API response per (user, endpoint, Idempotency-Key); see core.idempotency."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.CharField(max_length=255)
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "endpoint", "key"], name="wallet_idempotency_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.endpoint} {self.key}"


class Restriction(models.Model):
    """A hold on what a player may do with money, imposed by staff or a process and lifted
    by staff: never edited otherwise, so the rows are the account's history of holds.

    What each kind blocks is ``wallet.restrictions.BLOCKS``; the checks sit where money
    moves (withdrawals, buy-ins and top-ups at the tables) and where a seated player is
    dealt back in.
    """

    class Kind(models.TextChoices):
        FRAUD_FREEZE = "fraud_freeze", "Frozen (confirmed fraud case)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    #: What imposed it (e.g. ``fraud_case:12``): one active restriction per user and source,
    #: so imposing again is a no-op.
    source = models.CharField(max_length=64)
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    lift_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("lift_restriction", "Can lift a hold on an account")]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "source"],
                condition=Q(lifted_at__isnull=True),
                name="wallet_restriction_one_active_per_source",
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="wallet_restriction_has_reason"),
        ]
        # The check on every buy-in and withdrawal: a player's active holds.
        indexes = [
            models.Index(
                fields=["user"], condition=Q(lifted_at__isnull=True), name="wallet_restr_active"
            )
        ]

    def __str__(self) -> str:
        state = "lifted" if self.lifted_at else "active"
        return f"{self.kind} on {self.user_id} ({state})"
