"""Fraud review: cases put in front of staff, and the append-only log of what was done.

A ``Case`` is one suspected pair or ring with its score, kinds and evidence, as the last
analysis found it; staff move it through open -> reviewing -> confirmed / dismissed.
Every change (by the analysis or by a person) is a ``CaseLogEntry``; the database
refuses to update or delete those (migration triggers), so the review history cannot be
rewritten. Nothing here refers to money or hands except by id: fraud never changes a
hand or a transfer.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Case(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        REVIEWING = "reviewing", "Reviewing"
        CONFIRMED = "confirmed", "Confirmed"
        DISMISSED = "dismissed", "Dismissed"

    class Kind(models.TextChoices):
        CHIP_DUMPING = "chip_dumping", "Chip dumping"
        SOFT_PLAY = "soft_play", "Soft play"
        CARD_SHARING = "card_sharing", "Card sharing"
        RING = "ring", "Ring"

    #: Statuses the analysis still updates (and in which a subject has one case at most).
    LIVE = (Status.OPEN, Status.REVIEWING)

    #: ``pair:<a>-<b>`` or ``ring:<a>-<b>-<c>...``, user ids ascending: who the case is about.
    subject = models.CharField(max_length=255)
    players = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+")
    kinds = models.JSONField(help_text="The schemes found, strongest first.")
    score = models.FloatField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    hands_together = models.PositiveIntegerField(default=0)
    #: {kind: {feature: {"value": x, "baseline": y}}}: the pair against the room.
    features = models.JSONField(default=dict)
    #: [{"hand_id", "kind", "weight", "reason"}], the decisive hands, heaviest first.
    evidence = models.JSONField(default=list)
    #: [{"from": user id, "to": user id, "big_blinds": x, "amounts": {currency: minor units}}]:
    #: the net chips that went from one player to the other in their hands together.
    chip_flow = models.JSONField(default=list)
    #: [{"a", "b", "score", "kinds"}]: the scored pairs inside a ring (a pair case: itself).
    pairs = models.JSONField(default=list)
    #: Shared addresses and devices: context for the reviewer, never a verdict.
    context = models.JSONField(default=dict)
    #: The score when staff last dismissed it: the analysis reopens a dismissed subject only
    #: as a new case, when its score has grown well past this.
    dismissed_score = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-score", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subject"],
                condition=Q(status__in=["open", "reviewing"]),
                name="fraud_case_one_live_per_subject",
            ),
        ]
        indexes = [models.Index(fields=["status", "-score"], name="fraud_case_queue")]

    def __str__(self) -> str:
        return f"case {self.pk} {self.subject} ({', '.join(self.kinds)}; {self.status})"


class CaseLogEntry(models.Model):
    """One thing done to a case, by the analysis (``actor`` null) or a staff member."""

    class Action(models.TextChoices):
        OPENED = "opened", "Opened by the analysis"
        RESCORED = "rescored", "Rescored by the analysis"
        ASSIGNED = "assigned", "Assigned"
        NOTED = "noted", "Note"
        REVIEWING = "reviewing", "Review started"
        DISMISSED = "dismissed", "Dismissed"
        CONFIRMED = "confirmed", "Confirmed"
        FROZEN = "frozen", "Accounts frozen"
        CORRECTED = "corrected", "Money corrected"

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="log")
    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=12, choices=Action.choices)
    text = models.TextField(blank=True)
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"case {self.case_id}: {self.action} by {self.actor_id or 'analysis'}"


# --- the analysis's aggregates -------------------------------------------------------------
#
# Additive counters, one row per ordered pair of players (player toward partner), summed
# over every hand analysed: the rows of two chunks add up, so chunks run anywhere in any
# order. ``IngestedHand`` says which hands are counted (each once: running the analysis
# twice over the same hands changes nothing). See fraud.features for what each means.


class PairStat(models.Model):
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    hands = models.PositiveIntegerField(default=0)
    #: Big blinds from player to partner, all-in luck removed (negative: the other way).
    ev_net = models.FloatField(default=0.0)
    #: The same, each hand's flow at most fraud.features.CLIP_BB, and its squares.
    ev_clip = models.FloatField(default=0.0)
    ev_clip_sq = models.FloatField(default=0.0)
    soft_opp = models.PositiveIntegerField(default=0)
    soft_agg = models.PositiveIntegerField(default=0)
    fold_opp = models.PositiveIntegerField(default=0)
    fold_cnt = models.PositiveIntegerField(default=0)
    #: Preflop folds while the partner was still to act: the sum of (partner stronger - its
    #: chance) and of its variance (fraud.features: the card-sharing test).
    share_t = models.FloatField(default=0.0)
    share_v = models.FloatField(default=0.0)
    #: Shared hands dealt to three players or fewer, and their clipped flow and its squares.
    short = models.PositiveIntegerField(default=0)
    short_ev_clip = models.FloatField(default=0.0)
    short_ev_clip_sq = models.FloatField(default=0.0)
    #: After the flop, facing the partner's bet with a strong hand; and the folds of it.
    give_opp = models.PositiveIntegerField(default=0)
    give_cnt = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "partner"], name="fraud_pairstat_pair")
        ]

    def __str__(self) -> str:
        return f"{self.player_id} toward {self.partner_id}: {self.hands} hands"


class PairEvidence(models.Model):
    """A hand that weighs for a scheme between two players, with the reason in words."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=16, choices=Case.Kind.choices)
    hand = models.ForeignKey(
        "handhistory.Hand", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    weight = models.FloatField()
    reason = models.TextField()

    class Meta:
        indexes = [
            models.Index(
                fields=["player", "partner", "kind", "-weight"], name="fraud_evidence_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} in hand {self.hand_id}: {self.player_id} toward {self.partner_id}"


class IngestedHand(models.Model):
    """A hand whose facts are in the aggregates (each hand counted once)."""

    hand = models.OneToOneField(
        "handhistory.Hand", primary_key=True, on_delete=models.PROTECT, related_name="+"
    )

    def __str__(self) -> str:
        return f"hand {self.hand_id} counted"


class AnalysisRun(models.Model):
    """One run of the analysis: what it read, how far it is, what it found."""

    class Status(models.TextChoices):
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    rebuild = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    #: The highest hand id below which every finished hand was counted when it started.
    watermark = models.BigIntegerField(default=0)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    hands_total = models.PositiveIntegerField(default=0)
    hands_done = models.PositiveIntegerField(default=0)
    #: {"pairs_scored", "suspicions", "opened", "updated", "skipped", "seconds"...}
    summary = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"analysis {self.pk} ({self.status}, {self.hands_done}/{self.hands_total} hands)"


class StoredFacts(models.Model):
    """One finished hand's facts (``fraud.features.hand_facts``), computed once and kept:
    counting them again (a rebuild, another chunk plan) reads this row instead of the
    hand's events. Packed for counting (``fraud.facts``); ``version`` is the facts'
    definition they were computed under: a row of another version counts as missing.
    """

    hand = models.OneToOneField(
        "handhistory.Hand", primary_key=True, on_delete=models.PROTECT, related_name="+"
    )
    version = models.PositiveSmallIntegerField()
    #: The players dealt in: little-endian int64 user ids.
    lineup = models.BinaryField()
    #: One row per ordered pair with facts: little-endian float64
    #: ``(player, partner, *fraud.features.PAIR_COUNTERS)``.
    pairs = models.BinaryField()
    #: ``[[player, partner, kind, weight, reason], ...]`` as JSON ("" when none).
    evidence = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"facts of hand {self.hand_id} (v{self.version})"
