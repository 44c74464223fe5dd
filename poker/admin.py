"""Staff admin for tables, seats and hands.

Tables are created through the ``table_create`` service (so the same stakes checks
apply) and changed only through actions that call staff services (pause, resume, close).
Seats and hands are read-only: they change only through table commands. A hand's page
shows its event timeline.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.views.decorators.csrf import csrf_protect

from core.errors import DomainError
from handhistory.admin import EveryCardAdmin
from handhistory.models import Hand
from handhistory.store import stream_events
from poker.commands.seating import table_create
from poker.commands.staff import staff_actor, table_close, table_pause, table_resume
from poker.models import Seat, Table

# A table, one row per line: the formatter leaves it as written (fmt: skip).
_CREATE_FIELDS = (
    "name", "variant", "currency", "small_blind", "big_blind", "ante", "big_blind_ante",
    "button_blind", "max_seats", "min_buy_in", "max_buy_in", "rake_bps", "rake_cap",
    "action_seconds",
)  # fmt: skip


class TableForm(forms.ModelForm):  # type: ignore[type-arg]  # django-stubs: generic in the model
    """On add, the table is created by the ``table_create`` service once the form's own
    checks pass; the service's refusals become form errors (so there is one set of rules)."""

    created: Table | None = None

    class Meta:
        model = Table
        fields = _CREATE_FIELDS

    def _post_clean(self) -> None:  # Django's hook, run after the model's own checks
        super()._post_clean()  # type: ignore[misc]  # a private hook of Django's ModelForm, not in the stubs
        if self.instance.pk is not None or self._errors:  # type: ignore[attr-defined]  # a private method of Django's admin, not in the stubs
            return
        try:
            self.created = table_create(
                **{name: self.cleaned_data[name] for name in _CREATE_FIELDS}
            )
        except DomainError as exc:
            self.add_error(None, f"{exc.message} ({exc.code})")


class SeatInline(admin.TabularInline):  # type: ignore[type-arg]  # django-stubs: generic in the model
    model = Seat
    extra = 0
    can_delete = False
    fields = (
        "number",
        "player",
        "state",
        "stake_account",
        "chips",
        "waiting_for_big_blind",
        "joined_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _run_staff(
    modeladmin: admin.ModelAdmin[Table],
    request: HttpRequest,
    queryset: QuerySet[Table],
    command: Any,
    done: str,
) -> None:
    for table in queryset.order_by("pk"):
        try:
            command(table_id=table.pk, actor=staff_actor(request.user.pk))
        except DomainError as exc:
            modeladmin.message_user(request, f"{table}: {exc.message}", level=messages.ERROR)
        else:
            modeladmin.message_user(request, f"{table}: {done}.", level=messages.SUCCESS)


@admin.action(
    description="Pause (finish the running hand, deal no new one)", permissions=["change"]
)
def pause_tables(
    modeladmin: admin.ModelAdmin[Table], request: HttpRequest, queryset: QuerySet[Table]
) -> None:
    _run_staff(modeladmin, request, queryset, table_pause, "paused")


@admin.action(description="Resume paused tables", permissions=["change"])
def resume_tables(
    modeladmin: admin.ModelAdmin[Table], request: HttpRequest, queryset: QuerySet[Table]
) -> None:
    _run_staff(modeladmin, request, queryset, table_resume, "resumed")


@admin.action(description="Close (end any hand and cash everyone out)", permissions=["change"])
def close_tables(
    modeladmin: admin.ModelAdmin[Table], request: HttpRequest, queryset: QuerySet[Table]
) -> None:
    _run_staff(modeladmin, request, queryset, table_close, "closed, everyone cashed out")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # django-stubs: generic in the model
    list_display = (
        "id",
        "name",
        "variant",
        "stakes_display",
        "currency",
        "max_seats",
        "status",
        "hands_played",
        "version",
    )
    list_filter = ("status", "variant", "currency")
    search_fields = ("name",)
    actions = [pause_tables, resume_tables, close_tables]
    inlines = [SeatInline]
    form = TableForm

    def get_fields(self, request: HttpRequest, obj: Table | None = None) -> Any:
        if obj is None:
            return _CREATE_FIELDS
        return (
            *_CREATE_FIELDS,
            "status",
            "version",
            "button_seat",
            "hands_played",
            "current_hand",
            "created_at",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Table | None = None) -> Any:
        # An existing table changes only through its actions (services), never by a form.
        return () if obj is None else self.get_fields(request, obj)

    def get_inlines(self, request: HttpRequest, obj: Table | None) -> Any:
        return [SeatInline] if obj is not None else []

    @method_decorator(csrf_protect)
    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        # The admin wraps this view in a transaction; the table service must not be nested
        # (it is durable), and on add it is the only write, so the add page runs unwrapped.
        if object_id is None:
            return self._changeform_view(request, object_id, form_url, extra_context)  # type: ignore[attr-defined]  # a private method of Django's admin, not in the stubs
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        # Nothing is written here: on add the service already created the table (see
        # TableForm); on change every field is read-only.
        if not change and form.created is not None:
            obj.pk = form.created.pk
            obj.refresh_from_db()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _render_timeline(hand: Hand) -> SafeString:
    # Every card and the deck secrets: shown only to whom the every-card rule let in, of a
    # hand that has ended (``EveryCardAdmin.change_view``).
    rows = stream_events(hand.stream)
    lines = []
    for row in rows:
        shown = {k: v for k, v in row.payload.items() if k not in ("type", "version")}
        lines.append(
            (
                row.seq,
                row.recorded_at.isoformat(timespec="seconds"),
                row.type,
                row.actor_kind,
                json.dumps(shown, sort_keys=True),
            )
        )
    body = format_html_join(
        "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>", lines
    )
    return format_html(
        "<table><thead><tr><th>seq</th><th>recorded</th><th>event</th><th>by</th>"
        "<th>payload</th></tr></thead><tbody>{}</tbody></table>",
        body,
    )


@admin.register(Hand)
class HandAdmin(EveryCardAdmin):
    list_display = ("id", "table", "number", "started_at", "ended_at")
    list_filter = ("table",)
    search_fields = ("=id", "table__name")
    list_select_related = ("table",)
    fields = (
        "staff_view",
        "table",
        "number",
        "seat_numbers",
        "player_ids",
        "started_at",
        "ended_at",
        "actor_index",
        "deadline",
        "timeline",
    )
    readonly_fields = fields

    def hand_of(self, object_id: str) -> int | None:
        return int(object_id)

    @admin.display(description="replay")
    def staff_view(self, obj: Hand) -> SafeString:
        url = reverse("backoffice:hand", args=[obj.pk])
        return format_html('<a href="{}">Replay with every card, deal check and transfers</a>', url)

    @admin.display(description="event timeline")
    def timeline(self, obj: Hand) -> SafeString:
        return _render_timeline(obj)
