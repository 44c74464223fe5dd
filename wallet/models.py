"""Player-money records on top of the ledger (the money itself lives in ledger transfers)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q

from wallet.amounts import PLAY_MONEY, money_format


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
        return f"deposit {self.id} {money_format(self.amount, self.currency)} {self.status}"


class Withdrawal(models.Model):
    """A player's request to take money out: its funds are held (a pending transfer) until
    staff approve (the hold is posted) or reject it, or the player cancels it (the hold is
    voided). Above its currency's ``WALLET_WITHDRAWAL_FOUR_EYES_ABOVE`` it takes two
    approvals by different staff members: the first is recorded on the row
    (``first_approved_*``), the money moves only at the second (``wallet.services``)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending (funds held)"
        AWAITING_SECOND = (
            "awaiting_second",
            "Approved once (funds held, awaiting a second approval)",
        )
        APPROVED = "approved", "Approved (paid out)"
        REJECTED = "rejected", "Rejected (funds released)"
        CANCELLED = "cancelled", "Cancelled by the player (funds released)"

    #: Still held: staff may decide, the player may cancel.
    OPEN = (Status.PENDING, Status.AWAITING_SECOND)
    #: Ended with the funds back on the player's account.
    RELEASED = (Status.REJECTED, Status.CANCELLED)

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
    first_approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    first_approved_at = models.DateTimeField(null=True, blank=True)
    first_approval_reason = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Deciding a withdrawal pays money out or releases it: not a plain model change.
        permissions = [("approve_withdrawal", "Can approve or reject withdrawals")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_withdrawal_amount_gt_0"),
            # The four-eyes rule's last guard: nobody gives both approvals.
            models.CheckConstraint(
                condition=Q(first_approved_by__isnull=True)
                | Q(decided_by__isnull=True)
                | ~Q(first_approved_by=models.F("decided_by")),
                name="wallet_withdrawal_two_approvers",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "currency", "created_at"], name="wallet_wd_user_day"),
            # The player's list, newest first.
            models.Index(fields=["user", "created_at"], name="wallet_wd_user_time"),
        ]

    def __str__(self) -> str:
        return f"withdrawal {self.id} {money_format(self.amount, self.currency)} {self.status}"


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
            f"correction {money_format(self.amount, self.currency)} "
            f"{self.from_account_id}->{self.to_account_id}"
        )


class Restriction(models.Model):
    """A hold on what a player may do with money, imposed by staff or a process and lifted
    by staff: never edited otherwise, so the rows are the account's history of holds.

    What each kind blocks is ``wallet.restrictions.BLOCKS``; the checks sit where money
    moves (withdrawals, buy-ins and top-ups at the tables) and where a seated player is
    dealt back in.
    """

    class Kind(models.TextChoices):
        FRAUD_FREEZE = "fraud_freeze", "Frozen (confirmed fraud case)"
        TIME_OUT = "time_out", "Time-out (taken by the player)"
        SELF_EXCLUSION = "self_exclusion", "Self-exclusion (taken by the player)"

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
    #: A time-out ends by itself then; a self-exclusion holds at least until then and
    #: ends only when staff lift it (``wallet.restrictions``). None: until lifted.
    ends_at = models.DateTimeField(null=True, blank=True)

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


class DepositLimit(models.Model):
    """A player's own cap on deposits in one real currency over a rolling window.

    ``amount`` is the limit in force (None: no limit). A raise (or a removal) waits
    ``WALLET_LIMIT_RAISE_DELAY_HOURS``: it is kept in ``pending_amount`` (None: removal)
    and applies once ``pending_from`` has passed -- the check reads the value in force at
    its own time (``in_force``), so no task has to apply it.
    """

    class Period(models.TextChoices):
        DAY = "day", "24 hours"
        WEEK = "week", "7 days"
        MONTH = "month", "30 days"

    #: The rolling window each period sums deposits over.
    WINDOWS = {
        Period.DAY: timedelta(days=1),
        Period.WEEK: timedelta(days=7),
        Period.MONTH: timedelta(days=30),
    }

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=8)
    period = models.CharField(max_length=8, choices=Period.choices)
    amount = models.BigIntegerField(null=True, blank=True)
    pending_amount = models.BigIntegerField(null=True, blank=True)
    pending_from = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "currency", "period"], name="wallet_deposit_limit_once"
            ),
            models.CheckConstraint(
                condition=Q(amount__isnull=True) | Q(amount__gt=0),
                name="wallet_deposit_limit_amount_gt_0",
            ),
            models.CheckConstraint(
                condition=Q(pending_amount__isnull=True) | Q(pending_amount__gt=0),
                name="wallet_deposit_limit_pending_gt_0",
            ),
            # A pending value (even a pending removal) always says from when.
            models.CheckConstraint(
                condition=Q(pending_amount__isnull=True) | Q(pending_from__isnull=False),
                name="wallet_deposit_limit_pending_has_time",
            ),
        ]

    def __str__(self) -> str:
        shown = "no limit" if self.amount is None else money_format(self.amount, self.currency)
        return f"{self.user_id} {self.currency} {self.period}: {shown}"

    def in_force(self, at: datetime) -> int | None:
        """The limit that holds at ``at``: the pending value once its time has come."""
        if self.pending_from is not None and self.pending_from <= at:
            return self.pending_amount
        return self.amount

    def pending_at(self, at: datetime) -> bool:
        """Whether a change is still waiting at ``at``."""
        return self.pending_from is not None and self.pending_from > at


class DepositLimitChange(models.Model):
    """Every change a player (or staff) made to a deposit limit: who, when, from what to
    what, and from when it holds. Append-only: the database refuses UPDATE and DELETE."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=8)
    period = models.CharField(max_length=8, choices=DepositLimit.Period.choices)
    old_amount = models.BigIntegerField(null=True, blank=True)
    new_amount = models.BigIntegerField(null=True, blank=True)
    #: When the new value holds: at once for a lowering, after the delay for a raise.
    effective_from = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "created_at"], name="wallet_dlc_user_time")]

    def __str__(self) -> str:
        old, new = (
            "no limit" if a is None else money_format(a, self.currency)
            for a in (self.old_amount, self.new_amount)
        )
        return f"{self.user_id} {self.currency} {self.period}: {old} -> {new}"


class PlayMoneyReload(models.Model):
    """A play-money reload: the player's CHIPS cash topped back up to the configured
    amount by one ledger transfer from the house's play-money issuer.

    The rows are what the once-per-period rule counts (``wallet.reload``): the newest
    row of a player, read under the lock of the player's CHIPS account, says when the
    next reload is due.
    """

    # Derived from the caller's idempotency key: a retried reload finds its row.
    id = models.UUIDField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.BigIntegerField()
    transfer_id = models.UUIDField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_reload_amount_gt_0")
        ]
        indexes = [models.Index(fields=["user", "-created_at"], name="wallet_reload_user_time")]

    def __str__(self) -> str:
        return f"reload {money_format(self.amount, PLAY_MONEY)} for {self.user_id}"


class KycStatus(models.Model):
    """A player's identity-verification status; no row is the same as ``unverified``.

    Changed only by ``wallet.kyc`` (staff set it; a player asks for review), each change
    appended to ``KycStatusChange``.
    """

    class Status(models.TextChoices):
        UNVERIFIED = "unverified", "Unverified"
        PENDING = "pending", "Pending review"
        VERIFIED = "verified", "Verified"
        REJECTED = "rejected", "Rejected"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, primary_key=True, related_name="kyc"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.UNVERIFIED)
    note = models.TextField(blank=True, default="", help_text="The player's note for review.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "KYC status"
        verbose_name_plural = "KYC statuses"

    def __str__(self) -> str:
        return f"KYC of {self.user_id}: {self.status}"


class KycStatusChange(models.Model):
    """One change of a player's KYC status: who, when, from what to what, and why.

    Append-only: rows are created by ``wallet.kyc`` and never edited (the admin shows
    them read-only)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="kyc_changes"
    )
    old_status = models.CharField(max_length=12, choices=KycStatus.Status.choices)
    new_status = models.CharField(max_length=12, choices=KycStatus.Status.choices)
    reason = models.TextField()
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="wallet_kyc_change_user")]

    def __str__(self) -> str:
        return f"KYC of {self.user_id}: {self.old_status} -> {self.new_status}"
