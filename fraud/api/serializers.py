"""What staff read of a case over REST: players by username, kinds, score, status and
the evidence hand ids (the case page in the admin shows the rest)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from fraud.models import Case, CaseLogEntry


class CaseSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    players = serializers.SerializerMethodField()
    assignee = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    evidence_hand_ids = serializers.SerializerMethodField()

    class Meta:
        model = Case
        fields = (
            "id",
            "subject",
            "players",
            "kinds",
            "score",
            "status",
            "assignee",
            "hands_together",
            "evidence_hand_ids",
            "created_at",
            "updated_at",
        )

    def get_players(self, case: Case) -> list[dict[str, Any]]:
        players = sorted(case.players.all(), key=lambda u: u.pk)
        return [{"id": u.pk, "username": u.get_username()} for u in players]

    def get_evidence_hand_ids(self, case: Case) -> list[int]:
        return list(dict.fromkeys(int(e["hand_id"]) for e in case.evidence))


class LogEntrySerializer(serializers.ModelSerializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    actor = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = CaseLogEntry
        fields = ("at", "actor", "action", "text", "data")


class CaseDetailSerializer(CaseSerializer):
    log = LogEntrySerializer(many=True, read_only=True)

    class Meta(CaseSerializer.Meta):
        fields = (
            *CaseSerializer.Meta.fields,
            "evidence",
            "features",
            "chip_flow",
            "context",
            "dismissed_score",
            "log",
        )


class AssignSerializer(StrictSerializer):
    assignee_id = StrictIntegerField(allow_null=True, min_value=1)


class NoteSerializer(StrictSerializer):
    text = StrictCharField(max_length=4000)


class DismissSerializer(StrictSerializer):
    reason = StrictCharField(max_length=4000)


class ConfirmSerializer(StrictSerializer):
    reason = StrictCharField(max_length=4000)
    freeze = StrictBooleanField(default=False)
