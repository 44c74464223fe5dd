"""A tournament's records: its structure and state (``Tournament``) and its entries
(``Entry``, one row per player per entry number, for re-entry).

The money is the ledger's (each tournament's prize pool and bounty accounts, owner
``tournament:<id>``); an entry keeps what its player paid, so a refund pays back exactly
that. What happened is the tournament's stream in the event store (``tournament-<id>``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from poker.models import Variant
from tournaments.rules.errors import StructureError
from tournaments.rules.structure import structure_from_data


class Tournament(models.Model):
    class Kind(models.TextChoices):
        SIT_AND_GO = "sit_and_go", "Sit-and-go"
        SCHEDULED = "scheduled", "Scheduled"

    class Status(models.TextChoices):
        REGISTERING = "registering"
        RUNNING = "running"
        BREAK = "break"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    variant = models.CharField(max_length=2, choices=Variant.choices)
    currency = models.CharField(max_length=8)
    # What a player pays: buy_in (bounty included) + fee. The pool receives buy_in - bounty.
    buy_in = models.BigIntegerField()
    fee = models.BigIntegerField(default=0)
    bounty = models.BigIntegerField(default=0)
    starting_stack = models.BigIntegerField()
    seats_per_table = models.PositiveSmallIntegerField()
    min_players = models.PositiveIntegerField()
    max_players = models.PositiveIntegerField()
    # Null for a sit-and-go: it starts when full.
    starts_at = models.DateTimeField(null=True, blank=True)
    levels = models.JSONField()
    breaks = models.JSONField(default=list)
    late_registration_levels = models.PositiveSmallIntegerField(default=0)
    rebuy = models.JSONField(null=True, blank=True)
    add_on = models.JSONField(null=True, blank=True)
    guarantee = models.BigIntegerField(default=0)
    # Percent by place (strings of decimals, "50.00"), or null: the room's default table.
    payouts = models.JSONField(null=True, blank=True)
    action_seconds = models.PositiveSmallIntegerField(default=30)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.REGISTERING)
    cancel_reason = models.TextField(blank=True, default="")
    # Play (the director, tournaments.director): when it started, the hands its tables
    # have finished (the clock of levels counted in hands), the seat draw (per table: its
    # number, its poker table id and seat -> player), and when it finished.
    started_at = models.DateTimeField(null=True, blank=True)
    hands_played = models.PositiveIntegerField(default=0)
    draw = models.JSONField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Multi-table play (the director's balancing): the draw is seated (a start cut short
    # is finished by the sweeper until then); the poker ids of the tables broken; the
    # moves planned and not yet made ({key, player, from, to, seat}: a crash leaves them
    # here for the sweeper), and how many moves were ever planned (their keys' numbers);
    # the tables held from dealing (waiting to be balanced, or done with their
    # hand-for-hand hand); the hand-for-hand round on the bubble, null off it ({finished:
    # table ids, busts: [{player, stack, hand}]}: the busts are placed together at its end).
    seated = models.BooleanField(default=False)
    broken = models.JSONField(default=list)
    moves = models.JSONField(default=list)
    moves_planned = models.PositiveIntegerField(default=0)
    waiting = models.JSONField(default=list)
    hand_for_hand = models.JSONField(null=True, blank=True)
    # The staff request that created it: a retried create finds the first.
    created_key = models.UUIDField(unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(buy_in__gte=0, fee__gte=0, bounty__gte=0, guarantee__gte=0)
                & Q(bounty__lte=F("buy_in")),
                name="tournament_money_sane",
            ),
            models.CheckConstraint(
                condition=Q(min_players__gte=2, max_players__gte=F("min_players")),
                name="tournament_player_bounds",
            ),
            models.CheckConstraint(
                condition=Q(kind="sit_and_go", starts_at__isnull=True)
                | Q(kind="scheduled", starts_at__isnull=False),
                name="tournament_start_by_kind",
            ),
        ]
        indexes = [models.Index(fields=["status", "-id"], name="tournament_lobby")]

    def __str__(self) -> str:
        return f"tournament {self.pk} {self.name}"

    @property
    def stream(self) -> str:
        return f"tournament-{self.pk}"

    @property
    def owner_ref(self) -> str:
        """The ledger owner of its pool and bounty accounts."""
        return f"tournament:{self.pk}"


class Entry(models.Model):
    """One registration of a player (``number`` counts their entries: re-entry)."""

    class Status(models.TextChoices):
        REGISTERED = "registered"
        UNREGISTERED = "unregistered"
        REFUNDED = "refunded"  # the tournament was cancelled

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.REGISTERED)
    # What the player paid for this entry (buy_in includes bounty), refunded as it was paid.
    buy_in = models.BigIntegerField()
    fee = models.BigIntegerField()
    bounty = models.BigIntegerField()
    # In play: the chips after the player's last hand (the starting stack of their next
    # hand), their places (first to last: a range when busting with an equal stack as
    # others in one hand) and the prize paid, null until known.
    chips = models.BigIntegerField(null=True, blank=True)
    place = models.PositiveIntegerField(null=True, blank=True)
    last_place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.BigIntegerField(null=True, blank=True)
    # The bounties paid to the player: one for each player they busted (a share of it on
    # a split pot), and the winner's own at the finish.
    bounties_won = models.BigIntegerField(default=0)
    registered_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player", "number"], name="tournament_entry_number_once"
            ),
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(status="registered"),
                name="tournament_entry_one_live",
            ),
        ]

    def __str__(self) -> str:
        return f"entry {self.tournament_id}/{self.player_id}#{self.number}"


class StructureTemplate(models.Model):
    """A blind structure staff start tournaments from: the three the app ships (turbo,
    regular, deep: ``tournaments/rules/data``, loaded by a migration) and any staff add or
    edit in the admin. ``clean`` holds it to the structure's rules
    (``tournaments.rules.structure``); a tournament copies the levels it was made with,
    so editing a template never changes a tournament."""

    name = models.CharField(max_length=60, unique=True)
    description = models.CharField(max_length=200, blank=True, default="")
    levels = models.JSONField()
    breaks = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        try:
            structure_from_data({"levels": self.levels, "breaks": self.breaks})
        except StructureError as error:
            raise ValidationError({"levels": f"{error.code}: {error.message}"}) from None
