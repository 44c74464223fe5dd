"""Strict request serializers and documentation-only response shapes of the tournament
API. They validate shapes (each level has its blinds and a length in minutes or hands);
how the fields fit together is the service's (``tournaments.services``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from poker.models import Variant
from tournaments.models import Tournament

MAX_LEVELS = 100
MAX_PLAYERS = 100_000


class LevelSerializer(StrictSerializer):
    """A blind level: its blinds and ante, lasting ``minutes`` or ``hands`` (one of them)."""

    small_blind = StrictIntegerField()
    big_blind = StrictIntegerField(min_value=1)
    ante = StrictIntegerField(default=0)
    big_blind_ante = StrictBooleanField(default=False)
    minutes = StrictIntegerField(min_value=1, max_value=600, required=False)
    hands = StrictIntegerField(min_value=1, max_value=1_000, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("minutes" in attrs) == ("hands" in attrs):
            raise serializers.ValidationError("A level lasts either minutes or hands.")
        if attrs["small_blind"] > attrs["big_blind"]:
            raise serializers.ValidationError("The small blind is above the big blind.")
        return attrs


class BreakSerializer(StrictSerializer):
    after_level = StrictIntegerField(min_value=1, max_value=MAX_LEVELS)
    minutes = StrictIntegerField(min_value=1, max_value=120)


class RebuySerializer(StrictSerializer):
    until_level = StrictIntegerField(min_value=1, max_value=MAX_LEVELS)
    price = StrictIntegerField(min_value=1)
    chips = StrictIntegerField(min_value=1)
    max = StrictIntegerField(min_value=1, max_value=100)


class AddOnSerializer(StrictSerializer):
    at_level = StrictIntegerField(min_value=1, max_value=MAX_LEVELS)
    price = StrictIntegerField(min_value=1)
    chips = StrictIntegerField(min_value=1)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "enum": ["when_full"]},
            {"type": "string", "format": "date-time"},
        ],
        "description": '"when_full" (a sit-and-go) or the scheduled start (ISO 8601).',
    }
)
class StartField(serializers.Field):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """``"when_full"`` -> None (a sit-and-go), else an ISO-8601 time (scheduled)."""

    def to_internal_value(self, data: Any) -> Any:
        if data == "when_full":
            return None
        if not isinstance(data, str):
            raise serializers.ValidationError('"when_full" or an ISO-8601 time.')
        return serializers.DateTimeField().to_internal_value(data)

    def to_representation(self, value: Any) -> Any:
        return value


class TournamentCreateSerializer(StrictSerializer):
    name = StrictCharField(max_length=100)
    variant = serializers.ChoiceField(choices=Variant.choices)
    currency = StrictCharField(max_length=8)
    buy_in = StrictIntegerField(help_text="Minor units, bounty included; the fee is on top.")
    fee = StrictIntegerField(default=0)
    bounty = StrictIntegerField(default=0, help_text="The part of the buy-in that is a bounty.")
    starting_stack = StrictIntegerField(min_value=1)
    seats_per_table = StrictIntegerField(min_value=2, max_value=10)
    min_players = StrictIntegerField(min_value=2, max_value=MAX_PLAYERS)
    max_players = StrictIntegerField(min_value=2, max_value=MAX_PLAYERS)
    start = StartField()
    levels = LevelSerializer(many=True, min_length=1, max_length=MAX_LEVELS)
    breaks = BreakSerializer(many=True, default=list, max_length=MAX_LEVELS)
    late_registration_levels = StrictIntegerField(max_value=MAX_LEVELS, default=0)
    rebuy = RebuySerializer(required=False, allow_null=True, default=None)
    add_on = AddOnSerializer(required=False, allow_null=True, default=None)
    guarantee = StrictIntegerField(default=0)
    payouts = serializers.ListField(
        child=serializers.DecimalField(
            max_digits=5,
            decimal_places=2,
            min_value=Decimal("0.01"),
            max_value=Decimal(100),
            coerce_to_string=False,
        ),
        min_length=1,
        max_length=1_000,
        allow_null=True,
        required=False,
        default=None,
        help_text="Percent of the prize pool by place (adding up to 100), or null: the "
        "room's default table by field size.",
    )
    action_seconds = StrictIntegerField(min_value=1, max_value=3600, default=30)


class ReasonSerializer(StrictSerializer):
    reason = StrictCharField(max_length=500, help_text="Why (kept in the stream and staff log).")


class LobbyQuerySerializer(StrictSerializer):
    status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)
    variant = serializers.ChoiceField(choices=Variant.choices, required=False)
    currency = StrictCharField(max_length=8, required=False, trim_whitespace=False)


# --- responses (documentation only: the views return the selectors' dicts) ---------


class LobbyRowSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=Tournament.Kind.choices)
    variant = serializers.ChoiceField(choices=Variant.choices)
    currency = serializers.CharField()
    buy_in = serializers.IntegerField()
    fee = serializers.IntegerField()
    bounty = serializers.IntegerField()
    starting_stack = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    start = StartField()
    entries = serializers.IntegerField()
    max_players = serializers.IntegerField()
    guarantee = serializers.IntegerField()
    prize_pool = serializers.IntegerField()


class LevelStateSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    number = serializers.IntegerField(help_text="Counted from 1.")
    small_blind = serializers.IntegerField()
    big_blind = serializers.IntegerField()
    ante = serializers.IntegerField()
    ends_at = serializers.DateTimeField(allow_null=True)
    hands_left = serializers.IntegerField(allow_null=True)


class BreakStateSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    after_level = serializers.IntegerField()
    minutes = serializers.IntegerField()
    ends_at = serializers.DateTimeField()


class TableSeatSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    seat = serializers.IntegerField()
    username = serializers.CharField()
    stack = serializers.IntegerField()


class TournamentTableSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.IntegerField()
    seats = TableSeatSerializer(many=True)


class StandingSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    username = serializers.CharField()
    chips = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    prize = serializers.IntegerField(allow_null=True)
    bounties_won = serializers.IntegerField(
        help_text="Minor units: the bounties paid to the player so far (one per player they "
        "busted, a share on a split pot; the winner's own at the finish)."
    )


class TournamentYouSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    table = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    chips = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    prize = serializers.IntegerField(allow_null=True)
    bounties_won = serializers.IntegerField(
        help_text="Minor units: the bounties paid to the player so far (one per player they "
        "busted, a share on a split pot; the winner's own at the finish)."
    )


class StoredLevelSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    small_blind = serializers.IntegerField()
    big_blind = serializers.IntegerField()
    ante = serializers.IntegerField()
    big_blind_ante = serializers.BooleanField()
    minutes = serializers.IntegerField(required=False)
    hands = serializers.IntegerField(required=False)


class TournamentSerializer(LobbyRowSerializer):
    seats_per_table = serializers.IntegerField()
    min_players = serializers.IntegerField()
    levels = StoredLevelSerializer(many=True)
    breaks = BreakSerializer(many=True)
    late_registration_levels = serializers.IntegerField()
    rebuy = RebuySerializer(allow_null=True)
    add_on = AddOnSerializer(allow_null=True)
    payout_percentages = serializers.ListField(
        child=serializers.CharField(help_text='Percent by place, as decimal text: "27.50".'),
        allow_null=True,
    )
    action_seconds = serializers.IntegerField()
    cancel_reason = serializers.CharField(allow_blank=True)
    players_left = serializers.IntegerField()
    payouts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Place -> prize (minor units) of the prize pool as it stands; empty while "
        "the room's default table decides at the start.",
    )
    level = LevelStateSerializer(allow_null=True, help_text="Null before the start.")
    on_break = BreakStateSerializer(
        allow_null=True,
        help_text="The break the clock is on (no table deals a new hand until ends_at), or null.",
    )
    tables = TournamentTableSerializer(many=True)
    standings = StandingSerializer(many=True)
    you = TournamentYouSerializer(allow_null=True, help_text="Your entry, or null.")


class OtsSpeedSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    type = serializers.CharField(
        help_text="Normal, Semi-Turbo, Turbo, Super-Turbo, Hyper-Turbo or Ultra-Turbo: named "
        "by the minutes a level lasts (levels counted in hands: Normal)."
    )
    round_time = serializers.IntegerField(help_text="Seconds a level lasts; 0: counted in hands.")


class OtsFinishSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    player_name = serializers.CharField()
    finish_position = serializers.IntegerField(help_text="The place (the first of a shared range).")
    still_playing = serializers.BooleanField()
    prize = serializers.FloatField(help_text="In the currency's units.")


class OtsSummarySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    spec_version = serializers.CharField()
    site_name = serializers.CharField()
    network_name = serializers.CharField()
    internal_version = serializers.CharField()
    tournament_number = serializers.CharField()
    tournament_name = serializers.CharField()
    start_date_utc = serializers.CharField()
    end_date_utc = serializers.CharField()
    currency = serializers.CharField()
    buyin_amount = serializers.FloatField(help_text="The prize part of the buy-in (units).")
    fee_amount = serializers.FloatField()
    bounty_fee_amount = serializers.FloatField(help_text="The bounty part of the buy-in.")
    initial_stack = serializers.IntegerField()
    type = serializers.ChoiceField(choices=["STT", "MTT"], help_text="One table, or more.")
    flags = serializers.ListField(child=serializers.ChoiceField(choices=["SNG", "Bounty"]))
    speed = OtsSpeedSerializer()
    prize_pool = serializers.FloatField()
    hero_player_name = serializers.CharField(
        required=False, help_text="Your name, when you played (absent otherwise)."
    )
    player_count = serializers.IntegerField()
    tournament_finishes_and_winnings = OtsFinishSerializer(many=True)


class TournamentSummarySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    ots = OtsSummarySerializer()
