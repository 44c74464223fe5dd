"""Strict request serializers and documentation-only response shapes for the poker API.

Validation is strict on purpose: money and seat numbers must be real JSON integers (no
``"100"``, ``100.0`` or ``true``), non-negative and below 2**63; unknown body fields are
refused. Serializers only validate and shape; every decision stays in the services.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core import openapi
from core.serializers import (
    QueryBooleanField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from handhistory.projections import summary_players
from poker.engine.betting import ACTIONS
from poker.models import Variant


class TableCreateSerializer(StrictSerializer):
    name = StrictCharField(max_length=80)
    variant = serializers.ChoiceField(choices=Variant.choices, default=Variant.NT)
    currency = StrictCharField(max_length=8, default="CHIPS")
    small_blind = StrictIntegerField()
    big_blind = StrictIntegerField(min_value=1)
    ante = StrictIntegerField(default=0)
    big_blind_ante = StrictBooleanField(default=False)
    button_blind = StrictIntegerField(default=0)
    max_seats = StrictIntegerField(min_value=2, max_value=10, default=6)
    min_buy_in = StrictIntegerField(min_value=1)
    max_buy_in = StrictIntegerField(min_value=1)
    rake_bps = StrictIntegerField(max_value=10_000, default=0)
    rake_cap = StrictIntegerField(default=0)
    action_seconds = StrictIntegerField(min_value=1, max_value=3600, default=30)


class SitSerializer(StrictSerializer):
    seat = StrictIntegerField(min_value=1, max_value=10, required=False, allow_null=True)
    buy_in = StrictIntegerField(min_value=1)


class TopUpSerializer(StrictSerializer):
    amount = StrictIntegerField(min_value=1)


class EmptySerializer(StrictSerializer):
    """Commands without parameters: the body is empty or ``{}``."""


class ActSerializer(StrictSerializer):
    action = serializers.ChoiceField(choices=list(ACTIONS))
    amount = StrictIntegerField(required=False, allow_null=True)
    version = StrictIntegerField(required=False, allow_null=True)


class HandDetailQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    full = QueryBooleanField(default=False)


# --- response shapes (documentation) --------------------------------------------------------


class CurrencySpecSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    code = serializers.CharField()
    decimals = serializers.IntegerField(
        help_text="Digits after the point: minor units per unit = 10**decimals."
    )
    symbol = serializers.CharField(
        help_text='Written before an amount ("€"); empty: the code follows it.', allow_blank=True
    )


class TablePublicSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    name = serializers.CharField()
    variant = serializers.ChoiceField(choices=Variant.choices)
    currency = serializers.CharField()
    small_blind = serializers.IntegerField()
    big_blind = serializers.IntegerField()
    ante = serializers.IntegerField()
    stakes_label = serializers.CharField(
        help_text='The stakes as shown to players: "SB/BB" (fixed-limit: "small bet/big bet"), '
        'then "ante N" and "button N" when there are. In minor units.'
    )
    stakes_display = serializers.CharField(
        help_text='The same stakes in the currency\'s units, as the pages show them: "€0.05/€0.10"; '
        'play money "50/100 CHIPS".'
    )
    currency_spec = CurrencySpecSerializer(
        help_text="How to show and read amounts of the table's currency (amounts in this API "
        "stay integer minor units)."
    )
    max_seats = serializers.IntegerField()
    min_buy_in = serializers.IntegerField()
    max_buy_in = serializers.IntegerField()
    rake_bps = serializers.IntegerField()
    rake_cap = serializers.IntegerField()
    action_seconds = serializers.IntegerField()
    status = serializers.CharField()


class LobbyTableSerializer(TablePublicSerializer):
    seats_taken = serializers.IntegerField()
    average_pot = serializers.IntegerField()


class SeatViewSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    user_id = serializers.IntegerField()
    username = serializers.CharField()
    state = serializers.CharField()
    stack = serializers.IntegerField()
    bet = serializers.IntegerField()
    in_hand = serializers.BooleanField()
    folded = serializers.BooleanField()
    all_in = serializers.BooleanField()
    cards = serializers.CharField(allow_null=True, help_text="Only once shown.")


class LegalActionsSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    actions = serializers.ListField(
        child=serializers.CharField(), help_text="A subset of fold, check, call, bet, raise."
    )
    call_amount = serializers.IntegerField()
    min_to = serializers.IntegerField(allow_null=True)
    max_to = serializers.IntegerField(allow_null=True)


class YouSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    state = serializers.CharField()
    hole_cards = serializers.CharField(allow_null=True)
    legal_actions = LegalActionsSerializer(allow_null=True)


class PotSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    amount = serializers.IntegerField()
    eligible_seats = serializers.ListField(child=serializers.IntegerField())


class HandViewSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    button_seat = serializers.IntegerField(allow_null=True)
    street = serializers.CharField()
    phase = serializers.CharField()
    board = serializers.CharField()
    pots = PotSerializer(many=True)
    total_pot = serializers.IntegerField()
    actor_seat = serializers.IntegerField(allow_null=True)
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the turn times out: the action time plus the time bank."
    )
    action_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="When the action time ends; from then until deadline the time bank is spent.",
    )


class TournamentOfTableSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    table_number = serializers.IntegerField(help_text="This table's number in the tournament.")


class LevelSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    small_blind = serializers.IntegerField()
    big_blind = serializers.IntegerField()
    ante = serializers.IntegerField()
    big_blind_ante = serializers.BooleanField(
        help_text="The big blind posts the ante for every player dealt in."
    )


class TableViewSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    table = TablePublicSerializer()
    tournament = TournamentOfTableSerializer(
        allow_null=True, help_text="The tournament this table belongs to; null at a cash table."
    )
    level = LevelSerializer(
        allow_null=True,
        help_text="A tournament table's blinds and antes now (its tournament's level); null "
        "at a cash table. Stacks there are tournament chips, not money.",
    )
    version = serializers.IntegerField()
    seats = SeatViewSerializer(many=True)
    hand = HandViewSerializer(allow_null=True)
    next_hand_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Set while the last hand's result is shown (POKER_HAND_PAUSE_MS): when the "
        "next hand is due.",
    )
    you = YouSerializer(allow_null=True)


class CommandResultSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """What a table command returns: its own fields, the new ``version``, and
    ``replayed: true`` when the same Idempotency-Key was seen before."""

    version = serializers.IntegerField()
    replayed = serializers.BooleanField(required=False)


class SummaryPlayersField(serializers.JSONField):
    """Each player's ``seat``, ``user_id`` and ``starting_stack`` (older summaries read
    in the same shape)."""

    def to_representation(self, value: Any) -> Any:
        return summary_players(value)


class HandSummarySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """One finished hand (no hole cards but those shown at showdown)."""

    hand = serializers.IntegerField(source="hand_id")
    table = serializers.IntegerField(source="table_id")
    number = serializers.IntegerField()
    variant = serializers.CharField()
    currency = serializers.CharField()
    stakes = serializers.JSONField()
    players = SummaryPlayersField()
    board = serializers.CharField()
    pots = serializers.JSONField()
    total_pot = serializers.IntegerField()
    rake = serializers.IntegerField()
    shown = serializers.JSONField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField()


class HandYouSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    position = serializers.CharField(help_text="SB, BB, UTG, UTG+1.., LJ, HJ, CO, BTN.")
    cards = serializers.CharField(help_text='Your hole cards as text, e.g. "Qh8h".')
    showed = serializers.BooleanField()
    starting_stack = serializers.IntegerField()
    final_stack = serializers.IntegerField()
    net = serializers.IntegerField(help_text="final_stack - starting_stack")
    won = serializers.IntegerField(help_text="Chips received from pots.")


class HandListRowSerializer(HandSummarySerializer):
    """A hand in your list: its summary, the table's name and your part in it."""

    hand = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    you = HandYouSerializer()


class ReadablePlayerSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    username = serializers.CharField()
    position = serializers.CharField()
    starting_stack = serializers.IntegerField()
    final_stack = serializers.IntegerField(allow_null=True, help_text="null while running.")
    net = serializers.IntegerField(allow_null=True)
    cards = serializers.CharField(
        allow_null=True, help_text='"Qh8h"; null when you may not see them.'
    )
    showed = serializers.BooleanField()
    won = serializers.IntegerField()


class ReadableWinnerSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    username = serializers.CharField()
    amount = serializers.IntegerField()


class ReadablePotSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    pot = serializers.IntegerField(help_text="0 the main pot, then side pots.")
    amount = serializers.IntegerField(help_text="Before rake.")
    rake = serializers.IntegerField()
    hand = serializers.CharField(help_text='The winning hand, e.g. "two_pair"; "" uncontested.')
    winners = ReadableWinnerSerializer(many=True)


class ReadableActionSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    street = serializers.CharField()
    seat = serializers.IntegerField()
    username = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=[
            "ante",
            "blind",
            "fold",
            "check",
            "call",
            "bet",
            "raise",
            "uncalled",
            "show",
            "muck",
        ]
    )
    amount = serializers.IntegerField(
        allow_null=True,
        help_text="Chips added (ante, blind, call), the total bet or raised "
        "to (bet, raise), or returned (uncalled).",
    )
    text = serializers.CharField(help_text='e.g. "zed raises to 300".')


class ReadableStepSeatSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    stack = serializers.IntegerField()
    bet = serializers.IntegerField()
    folded = serializers.BooleanField()
    all_in = serializers.BooleanField()
    cards = serializers.CharField(allow_null=True)


class ReadableStepSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    kind = serializers.CharField(help_text="start, deal, board, win, rake, or the action's kind.")
    text = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    street = serializers.CharField()
    board = serializers.CharField()
    pot = serializers.IntegerField(help_text="Chips in the middle, bets included.")
    pots = serializers.JSONField(help_text="Main and side pots before the awards.")
    rake = serializers.IntegerField()
    actor_seat = serializers.IntegerField(allow_null=True)
    seats = ReadableStepSeatSerializer(many=True)
    winners = serializers.JSONField(help_text="Pots awarded so far.")


class ReadableHandSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """The hand in words, with the same visibility as ``events``."""

    variant = serializers.CharField()
    table_name = serializers.CharField()
    max_seats = serializers.IntegerField()
    currency = serializers.CharField()
    button_seat = serializers.IntegerField()
    players = ReadablePlayerSerializer(many=True)
    board = serializers.CharField()
    board_by_street = serializers.DictField(child=serializers.CharField())
    rake = serializers.IntegerField()
    total_pot = serializers.IntegerField()
    pots = ReadablePotSerializer(many=True)
    actions = ReadableActionSerializer(many=True)
    steps = ReadableStepSerializer(
        many=True, help_text="The table after each step, for a replayer."
    )


class HandEventSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seq = serializers.IntegerField()
    recorded_at = serializers.DateTimeField()
    type = serializers.CharField()
    version = serializers.IntegerField()
    seat = serializers.IntegerField(
        required=False,
        help_text="The seat of the player the event is about (never an engine index).",
    )


class HandDetailSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField())
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    events = HandEventSerializer(many=True)
    summary = serializers.JSONField(allow_null=True)
    readable = ReadableHandSerializer()


ErrorSerializer = openapi.ErrorSerializer
