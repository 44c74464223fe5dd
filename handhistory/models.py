"""The append-only event store.

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


class HandSummary(models.Model):
    """Projection: one finished hand at a glance. Rebuildable from the events
    (``manage.py rebuild_projections``); written in the same transaction as the hand end."""

    hand = models.OneToOneField(
        "poker.Hand", primary_key=True, on_delete=models.PROTECT, related_name="summary"
    )
    # Indexed by (table, -ended_at), as the result's hand and player are by their
    # constraint and index: a second index would only cost writes.
    table = models.ForeignKey(
        "poker.Table", on_delete=models.PROTECT, related_name="+", db_index=False
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
        "poker.Hand", on_delete=models.PROTECT, related_name="results", db_index=False
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hand_results",
        db_index=False,
    )  # fmt: skip
    table = models.ForeignKey("poker.Table", on_delete=models.PROTECT, related_name="+")
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
