"""Double-entry ledger tables: accounts with cached balances, and immutable transfers.

Sign convention: an account's ``balance`` is the sum of its posted credits minus the sum
of its posted debits (credit-normal, like a customer's deposit account at a bank), so a
player's cash account holds a positive balance and the sum of every balance in one
currency is always zero. ``held`` is the sum of its unresolved pending debits (two-phase
holds); ``balance - held`` is what can still be spent.

The columns are changed only by ``ledger.posting`` (raw SQL under row locks); the
database refuses UPDATE and DELETE of transfers and money updates of accounts made
outside that path (triggers installed by migration 0002).
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import F, Q


class AccountKind(models.TextChoices):
    PLAYER_CASH = "player_cash", "Player cash"
    SEAT_STAKE = "seat_stake", "Table seat stake"
    HOUSE_RAKE = "house_rake", "House rake"
    PAYMENT_CLEARING = "payment_clearing", "Payment clearing"
    BONUS = "bonus", "Bonus / play-money issuer"
    ADJUSTMENT = "adjustment", "House adjustments"
    # A tournament's money while it runs (``owner_ref`` ``tournament:<id>``): each ends at zero.
    TOURNAMENT_POOL = "tournament_pool", "Tournament prize pool"
    TOURNAMENT_BOUNTY = "tournament_bounty", "Tournament bounties"
    HOUSE_TOURNAMENT_FEES = "house_tournament_fees", "House tournament fees"


class TransferStatus(models.TextChoices):
    POSTED = "posted", "Posted"
    PENDING = "pending", "Pending (hold)"
    POSTED_FROM_PENDING = "posted_from_pending", "Posted from pending"
    VOIDED = "voided", "Voided (hold released)"


class Account(models.Model):
    """One ledger account; ``owner_ref`` names what it belongs to (``user:42``, ``house``)."""

    kind = models.CharField(max_length=32, choices=AccountKind.choices)
    owner_ref = models.CharField(max_length=128)
    currency = models.CharField(max_length=8)
    balance = models.BigIntegerField(default=0)
    held = models.BigIntegerField(default=0)
    version = models.BigIntegerField(default=0)
    must_not_overdraw = models.BooleanField(default=True)
    closed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "owner_ref", "currency"], name="ledger_account_unique_owner"
            ),
            # Lets transfers reference (account, currency) pairs: the database itself
            # refuses a transfer in another currency than its accounts (PostgreSQL).
            models.UniqueConstraint(fields=["id", "currency"], name="ledger_account_id_currency"),
            models.CheckConstraint(condition=Q(held__gte=0), name="ledger_account_held_gte_0"),
            models.CheckConstraint(
                condition=Q(must_not_overdraw=False) | Q(balance__gte=F("held")),
                name="ledger_account_no_overdraft",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.owner_ref}:{self.currency}"

    @property
    def available(self) -> int:
        """What can be spent now: posted balance minus held funds."""
        return self.balance - self.held


class Transfer(models.Model):
    """One immutable movement of ``amount`` from ``debit_account`` to ``credit_account``.

    Resolving a hold never changes the pending row: a new row with status
    ``posted_from_pending`` or ``voided`` references it through ``pending``, and a unique
    constraint makes that happen at most once.
    """

    id = models.UUIDField(primary_key=True)
    # The database constraints are the (account, currency) foreign keys added by migration
    # 0002 (PostgreSQL; an insert trigger on SQLite): they imply these plain ones, which
    # would only add two more checks to every posting's commit.
    debit_account = models.ForeignKey(
        Account,
        on_delete=models.PROTECT,
        related_name="debits",
        db_index=False,
        db_constraint=False,
    )
    credit_account = models.ForeignKey(
        Account,
        on_delete=models.PROTECT,
        related_name="credits",
        db_index=False,
        db_constraint=False,
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=8)
    code = models.CharField(max_length=64)
    status = models.CharField(max_length=24, choices=TransferStatus.choices)
    pending = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="resolutions",
        db_index=False,
    )
    reference = models.CharField(max_length=128, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_transfer_amount_gt_0"),
            models.CheckConstraint(
                condition=~Q(debit_account=F("credit_account")),
                name="ledger_transfer_distinct_accounts",
            ),
            models.CheckConstraint(
                condition=Q(status__in=TransferStatus.values), name="ledger_transfer_status_valid"
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        status__in=[TransferStatus.POSTED_FROM_PENDING, TransferStatus.VOIDED],
                        pending__isnull=False,
                    )
                    | Q(
                        status__in=[TransferStatus.POSTED, TransferStatus.PENDING],
                        pending__isnull=True,
                    )
                ),
                name="ledger_transfer_resolution_has_pending",
            ),
            # A hold is resolved (posted or voided) at most once.
            models.UniqueConstraint(
                fields=["pending"],
                condition=Q(pending__isnull=False),
                name="ledger_transfer_resolved_once",
            ),
        ]
        indexes = [
            models.Index(fields=["debit_account", "-created_at"], name="ledger_tr_debit_time"),
            models.Index(fields=["credit_account", "-created_at"], name="ledger_tr_credit_time"),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.amount} {self.currency} {self.status}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Transfers are written only by the posting core (raw SQL, under row locks).
        raise TypeError("Transfers are written only through ledger.services.")
