"""The append-only event store, and the hands whose streams it holds.

One table holds every event of every stream (a hand, or a table's own stream for seating
and button events). ``position`` is the global order; ``(stream, seq)`` is unique and is
the optimistic-concurrency guard; each row's ``hash`` covers the previous row's hash in the
same stream and its own content, so any edit breaks the chain. The database refuses UPDATE
and DELETE (triggers installed by migration 0002), so history can only grow.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Event(models.Model):
    class ActorKind(models.TextChoices):
        PLAYER = "player"
        SYSTEM = "system"
        STAFF = "staff"

    position = models.BigAutoField(primary_key=True)
    stream = models.CharField(max_length=64)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    version = models.PositiveSmallIntegerField()
    payload = models.JSONField()
    recorded_at = models.DateTimeField()
    actor_kind = models.CharField(max_length=8, choices=ActorKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    client_ip = models.GenericIPAddressField(null=True, blank=True)
    device_id = models.CharField(max_length=128, blank=True, default="")
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stream", "seq"], name="event_stream_seq_unique"),
            # A constraint, not ``unique=True``: no second (LIKE) index on every insert.
            models.UniqueConstraint(fields=["hash"], name="event_hash_unique"),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="event_seq_positive"),
        ]
        indexes = [models.Index(fields=["type", "position"])]
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.stream}#{self.seq} {self.type}"


class Hand(models.Model):
    """One hand's identity, the header of its event stream ``hand-<id>``: the table it was
    dealt at, its number there, who sat where, when it started and ended, and the live
    shot clock while it runs.

    Moved here from ``poker`` so the layer that lists, exports, verifies and rebuilds the
    hands reads no model above it (docs/architecture.md, "Layers and import directions"):
    same database table (``poker_hand``, which the table stores write with raw SQL),
    columns, constraint and index (``handhistory`` migration ``0007_hand``).
    """

    table = models.ForeignKey(
        settings.HANDHISTORY_TABLE_MODEL, on_delete=models.PROTECT, related_name="hands"
    )
    number = models.PositiveIntegerField()
    #: Engine player index -> seat number and player id, fixed at the start of the hand.
    seat_numbers = models.JSONField()
    player_ids = models.JSONField()
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    #: Who must act and by when (the shot clock); null when nobody is to act.
    actor_index = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        db_table = "poker_hand"
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="hand_number_unique"),
        ]

    def __str__(self) -> str:
        return f"hand {self.pk} (table {self.table_id} #{self.number})"

    @property
    def stream(self) -> str:
        return f"hand-{self.pk}"


class HandSummary(models.Model):
    """Projection: one finished hand at a glance. Rebuildable from the events
    (``manage.py rebuild_projections``); written in the same transaction as the hand end."""

    hand = models.OneToOneField(
        "handhistory.Hand", primary_key=True, on_delete=models.PROTECT, related_name="summary"
    )
    # Indexed by (table, -ended_at), as the result's hand and player are by their
    # constraint and index: a second index would only cost writes.
    table = models.ForeignKey(
        settings.HANDHISTORY_TABLE_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    number = models.PositiveIntegerField()
    variant = models.CharField(max_length=2)
    currency = models.CharField(max_length=8)
    stakes = models.JSONField()
    players = models.JSONField()
    board = models.CharField(max_length=16, blank=True)
    pots = models.JSONField()
    total_pot = models.BigIntegerField()
    rake = models.BigIntegerField()
    shown = models.JSONField()
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()

    class Meta:
        ordering = ["-ended_at"]
        indexes = [models.Index(fields=["table", "-ended_at"])]

    def __str__(self) -> str:
        return f"hand {self.hand_id} summary"


class PlayerHandResult(models.Model):
    """Projection: one player's result in one hand."""

    hand = models.ForeignKey(
        "handhistory.Hand", on_delete=models.PROTECT, related_name="results", db_index=False
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="hand_results",
        db_index=False,
    )
    table = models.ForeignKey(
        settings.HANDHISTORY_TABLE_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    seat = models.PositiveSmallIntegerField()
    starting_stack = models.BigIntegerField()
    final_stack = models.BigIntegerField()
    net = models.BigIntegerField()
    won = models.BigIntegerField()
    showed = models.CharField(max_length=16, blank=True)
    ended_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "player"], name="result_one_per_player")
        ]
        indexes = [models.Index(fields=["player", "-ended_at"])]

    def __str__(self) -> str:
        return f"{self.player_id} in hand {self.hand_id}: {self.net:+d}"


class ExportJob(models.Model):
    """One hand-history export, and the record of who exported what.

    Every export is a row: a player's or staff's job over REST (a file in the ``exports``
    storage), a staff member's single-hand export (``source="hand"``, no file) and an
    operator's ``manage.py export_hands`` run (``source="cli"``, written outside the
    storage). ``full`` marks the exports that hold every card: the question "what did staff
    export" is ``ExportJob.objects.filter(full=True)``.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    class Source(models.TextChoices):
        API = "api"
        ADMIN = "admin"
        HAND = "hand"
        CLI = "cli"

    #: Statuses of a job that still holds a place in its requester's quota.
    ACTIVE = (Status.QUEUED, Status.RUNNING)
    #: Statuses after which nothing changes but expiry.
    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED, Status.EXPIRED)

    # Null for an operator's command-line export (no account behind it).
    requester = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.API)
    format = models.CharField(max_length=16)
    full = models.BooleanField(default=False, help_text="Every card (staff and operators).")
    #: {"tables": [...], "since": iso | null, "until": iso | null, "hand_ids": [...],
    #: "player": username | null}
    filters = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    hands_done = models.PositiveIntegerField(default=0)
    hands_total = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    #: The file's name in the ``exports`` storage (blank until it is stored, and again
    #: once it expires).
    file_name = models.CharField(max_length=255, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=255, blank=True)
    request_hash = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["requester", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="exportjob_one_per_key",
            )
        ]
        indexes = [
            # A requester's jobs, newest first, and their active ones (the quota).
            models.Index(fields=["requester", "-created_at"], name="exportjob_requester"),
            # The expiry sweep looks only at jobs that still hold a file.
            models.Index(
                fields=["expires_at"],
                condition=~models.Q(file_name=""),
                name="exportjob_expiring_files",
            ),
        ]

    def __str__(self) -> str:
        return f"export {self.pk} ({self.format}, {self.status})"

    @property
    def progress(self) -> float:
        """Hands done over hands to do, 0.0 to 1.0 (1.0 once a job succeeded, even empty)."""
        if self.status == self.Status.SUCCEEDED:
            return 1.0
        if not self.hands_total:
            return 0.0
        return min(1.0, self.hands_done / self.hands_total)


class HandText(models.Model):
    """Derived product: one finished hand's export text in one format, as a template any
    viewer's text is rendered from (``handhistory.exports.templates``). Written off the
    table path by the ``export_texts`` deriver (``handhistory.derived``); never changed."""

    # Indexed by the (hand, format) constraint: a second index would only cost writes.
    hand = models.ForeignKey(
        "handhistory.Hand", on_delete=models.PROTECT, related_name="texts", db_index=False
    )
    format = models.CharField(max_length=16)
    template = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "format"], name="handtext_one_per_format")
        ]

    def __str__(self) -> str:
        return f"hand {self.hand_id} {self.format} text"


class DeriveMark(models.Model):
    """Where the backlog of derived products stands (``handhistory.derived``): every hand
    id up to ``last_hand_id`` was looked at, and ``pending`` are those of them that had not
    ended then (hands end out of id order: they are looked at again until they end)."""

    name = models.CharField(max_length=32, primary_key=True)
    last_hand_id = models.BigIntegerField(default=0)
    pending = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"{self.name}: up to hand {self.last_hand_id}, {len(self.pending)} pending"
