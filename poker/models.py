"""Tables and seats: configuration and who sits where.

The game itself lives in the event store (``handhistory.Event``, each hand's header row
``handhistory.Hand``) and is replayed by the pure engine; the rows here are what the engine does not know: stakes, who owns a seat,
which ledger account holds a seat's chips, and a per-table ``version`` that every
committed change increments (clients send it back to detect stale views).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from core.idempotency import TABLE_KEY_LENGTH
from poker.engine.deck import new_server_seed
from wallet.amounts import PLAY_MONEY, money_format


def new_server_seed_hex() -> str:
    """A fresh secret server seed for a table's next hand, as hex (the column's default)."""
    return new_server_seed().hex()


class Variant(models.TextChoices):
    NT = "NT", "No-Limit Texas Hold'em"
    FT = "FT", "Fixed-Limit Texas Hold'em"
    PO = "PO", "Pot-Limit Omaha"
    NS = "NS", "No-Limit Short-Deck Hold'em"


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        PAUSED = "paused"  # the current hand finishes; no new hand starts
        CLOSED = "closed"  # everyone cashed out; no one may sit

    name = models.CharField(max_length=80)
    variant = models.CharField(max_length=2, choices=Variant.choices, default=Variant.NT)
    currency = models.CharField(max_length=8, default="CHIPS")
    small_blind = models.BigIntegerField()
    big_blind = models.BigIntegerField()
    ante = models.BigIntegerField(default=0)
    big_blind_ante = models.BooleanField(
        default=False, help_text="The big blind posts one ante for everyone."
    )
    button_blind = models.BigIntegerField(
        default=0, help_text="Short-deck button blind (0 = none)."
    )
    max_seats = models.PositiveSmallIntegerField(default=6)
    min_buy_in = models.BigIntegerField()
    max_buy_in = models.BigIntegerField()
    rake_bps = models.PositiveIntegerField(default=0, help_text="Rake in basis points (500 = 5%).")
    rake_cap = models.BigIntegerField(default=0, help_text="Maximum rake per hand (0 = no rake).")
    action_seconds = models.PositiveIntegerField(default=30)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    version = models.BigIntegerField(default=0)
    button_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    hands_played = models.PositiveIntegerField(default=0)
    current_hand = models.OneToOneField(
        "handhistory.Hand", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    #: When the next hand is due after the pause that shows the last one's result
    #: (``POKER_HAND_PAUSE_MS``); null when no pause is running. The sweeper deals it.
    next_hand_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: SECRET: the server seed the table's next hand will be dealt from, drawn (and its
    #: commitment published in the table view) before that hand's client seeds are known;
    #: the hand that uses it draws the next one in the same transaction (docs/provably-fair.md).
    #: Never serialized: only its SHA-256 leaves the server before the hand is over.
    next_server_seed = models.CharField(max_length=64, default=new_server_seed_hex, editable=False)
    #: The tournament this table belongs to (a plain id: ``tournaments`` sits above
    #: ``poker``), and its table number there; both null for a cash table. A tournament
    #: table plays in chips (``Seat.chips``), at the level ``poker.tournament_hooks`` says.
    tournament_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    tournament_table = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(max_seats__gte=2) & Q(max_seats__lte=10), name="table_seats_2_to_10"
            ),
            models.CheckConstraint(
                condition=Q(small_blind__gte=0) & Q(big_blind__gt=0) & Q(ante__gte=0),
                name="table_stakes_non_negative",
            ),
            # A tournament table has no buy-in: its chips come from the tournament.
            models.CheckConstraint(
                condition=Q(min_buy_in__gt=0, max_buy_in__gte=F("min_buy_in"))
                | Q(tournament_id__isnull=False, min_buy_in=0, max_buy_in=0),
                name="table_buy_in_range",
            ),
            models.CheckConstraint(condition=Q(rake_bps__lte=10000), name="table_rake_at_most_100"),
            models.CheckConstraint(
                condition=Q(tournament_id=None, tournament_table=None)
                | Q(tournament_id__isnull=False, tournament_table__isnull=False, rake_bps=0),
                name="table_tournament_numbered_no_rake",
            ),
            models.UniqueConstraint(
                fields=["tournament_id", "tournament_table"],
                condition=Q(tournament_id__isnull=False),
                name="table_tournament_number_unique",
            ),
        ]
        permissions = [
            # The live staff view (``poker.full_view``): risk and admin (migration 0010).
            ("watch_every_card", "Can watch a live table with every card, a hand behind"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.variant} {self.stakes_display})"

    @property
    def is_tournament(self) -> bool:
        """A tournament's table: chips, not money; the level from the tournament."""
        return self.tournament_id is not None

    @property
    def stakes_label(self) -> str:
        """The table's stakes in minor units, as the API has always given them: "50/100"."""
        return self._stakes(str)

    @property
    def stakes_display(self) -> str:
        """The stakes as a page shows them: in the currency's units with its symbol
        ("€0.05/€0.10"), play chips whole with their name once ("50/100 CHIPS")."""
        label = self._stakes(lambda n: money_format(n, self.currency, chips_bare=True))
        return f"{label} {self.currency}" if self.currency == PLAY_MONEY else label

    def _stakes(self, amount: Callable[[int], str]) -> str:
        """The table's stakes as players name them -- the one place this label is made (the
        lobby, the table page, the API and the admin all show it), each amount written by
        ``amount``.

        Blind games: "SB/BB"; fixed-limit: "small bet/big bet" (the big blind and twice it,
        as ``services._maybe_start_hand`` configures the engine), so a 50/100-blind limit
        table is "100/200". Antes and a short-deck button blind follow.
        """
        if self.variant == Variant.FT:
            label = f"{amount(self.big_blind)}/{amount(2 * self.big_blind)}"
        else:
            label = f"{amount(self.small_blind)}/{amount(self.big_blind)}"
        if self.ante:
            label += f" ante {amount(self.ante)}"
        if self.button_blind:
            label += f" button {amount(self.button_blind)}"
        return label

    @property
    def stream(self) -> str:
        """The table's own event stream (seating, button, chat)."""
        return f"table-{self.pk}"


class Seat(models.Model):
    class State(models.TextChoices):
        ACTIVE = "active"
        SITTING_OUT = "sitting_out"
        LEAVING = "leaving"  # cashes out when the current hand ends

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    state = models.CharField(max_length=12, choices=State.choices, default=State.ACTIVE)
    #: A cash seat's stack: its ledger account (money). Null at a tournament table.
    stake_account = models.ForeignKey(
        "ledger.Account", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    #: A tournament seat's stack in tournament chips (not money). Null at a cash table.
    chips = models.BigIntegerField(null=True, blank=True)
    #: A tournament seat's tournament (its table's, copied): the database then refuses a
    #: player a second seat in one tournament, whatever the table. Null at a cash table.
    tournament_id = models.BigIntegerField(null=True, blank=True, editable=False)
    waiting_for_big_blind = models.BooleanField(default=False)
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    #: Extra thinking time beyond the table's action time; spent when used, refilled
    #: slowly with every hand dealt in (see poker.dealer.TIME_BANK_*).
    time_bank_ms = models.PositiveIntegerField(default=30_000)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_one_per_player"),
            models.UniqueConstraint(
                fields=["tournament_id", "player"],
                condition=Q(tournament_id__isnull=False),
                name="seat_one_per_tournament",
            ),
            models.CheckConstraint(
                condition=Q(stake_account__isnull=False, chips=None)
                | Q(stake_account=None, chips__isnull=False, chips__gte=0),
                name="seat_stake_or_chips",
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"seat {self.number} at table {self.table_id}"

    @property
    def stack(self) -> int:
        """The seat's stack: its chips at a tournament table, else its stake account's
        balance (as last read). The one place that says what a seat holds."""
        if self.chips is not None:
            return self.chips
        assert self.stake_account is not None  # the seat_stake_or_chips constraint
        return self.stake_account.balance


class ClientSeed(models.Model):
    """A player's client seed, mixed into the deck of every hand they are dealt into from
    the next one on (``poker.fairness``); no row is the same as an empty seed."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="client_seed"
    )
    seed = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"client seed of {self.player_id}"


class TableCommand(models.Model):
    """The exactly-once outcomes of commands: one row per (player, client key), holding the
    outcome, written in the same transaction as the command's effects; its unique index
    decides a race of one key with itself. One namespace per player for every table
    command and table creation (``command`` "create", whose outcome names the table it
    created); ``player`` is null for a creation by the system (``manage.py create_table``),
    whose keys are unique among themselves."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    # Indexed by the (player, key) constraint: a second index would only cost writes.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
        db_index=False,
    )
    key = models.CharField(max_length=TABLE_KEY_LENGTH)
    command = models.CharField(max_length=16)
    request_hash = models.CharField(max_length=64)
    result = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="table_command_key_unique"),
            models.UniqueConstraint(
                fields=["key"], condition=Q(player=None), name="table_command_system_key_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.command} by {self.player_id} ({self.key})"


class TableUpdate(models.Model):
    """The public update broadcast for each table version, kept so that a client that
    missed some can resync in order. Written in the command's transaction (so versions
    are gap-free and ordered); pruned to the recent past by a periodic task."""

    # Indexed by the (table, version) constraint.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+", db_index=False)
    version = models.BigIntegerField()
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "version"], name="table_update_version_unique")
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} v{self.version}"


class FullView(models.Model):
    """A staff member saw every card of a table: its live staff view, or any hand of it
    (hand view, deal proof, export). Written by ``poker.full_view.full_view_open`` under the
    table's lock; read by ``table_sit`` under the same lock, which refuses that member a
    seat there until ``STAFF_FULL_VIEW_SEAT_BLOCK_HOURS`` have passed. Only appended."""

    staff = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        # The seat check's one question: this member, this table, since then.
        indexes = [models.Index(fields=["staff", "table", "-at"], name="fullview_staff_table_at")]

    def __str__(self) -> str:
        return (
            f"{self.staff_id} saw every card of table {self.table_id} at {self.at:%Y-%m-%d %H:%M}"
        )


class TableSocket(models.Model):
    """One signed-in player's live-table WebSocket, wherever its process runs
    (``poker.presence``): the shot clock asks whether a seat's player had sockets at the
    table and has none left. Refreshed by its process while open (``seen_at``), closed
    when the socket goes; a process that dies stops refreshing, so its rows go stale."""

    channel = models.CharField(max_length=200, unique=True)
    # Indexed by the (table, player) index below.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+", db_index=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    seen_at = models.DateTimeField(db_index=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["table", "player"], name="table_socket_player")]

    def __str__(self) -> str:
        return f"socket {self.channel} of {self.player_id} at table {self.table_id}"
