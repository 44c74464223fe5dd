"""Read-only admin for the hand history: events can be looked at, never changed
(the database refuses it too); summaries and results are searchable by player and table."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from handhistory.models import Event, HandSummary, PlayerHandResult


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("position", "stream", "seq", "type", "actor_kind", "actor", "client_ip",
                    "device_id", "recorded_at")  # fmt: skip
    list_filter = ("type", "actor_kind")
    search_fields = ("=stream", "type")
    list_select_related = ("actor",)


@admin.register(HandSummary)
class HandSummaryAdmin(ReadOnlyAdmin):
    list_display = ("hand", "table", "number", "variant", "board", "total_pot", "rake", "ended_at")
    list_filter = ("table", "variant", "currency")
    search_fields = ("=hand__id", "table__name", "hand__results__player__username")
    list_select_related = ("table", "hand")

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> Any:
        queryset, _ = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False


@admin.register(PlayerHandResult)
class PlayerHandResultAdmin(ReadOnlyAdmin):
    list_display = ("hand", "player", "table", "seat", "starting_stack", "final_stack", "net",
                    "showed", "ended_at")  # fmt: skip
    list_filter = ("table",)
    search_fields = ("player__username", "=player__id", "table__name", "=hand__id")
    list_select_related = ("player", "table", "hand")
