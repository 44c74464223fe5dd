"""Read-only admin for the hand history: events can be looked at, never changed
(the database refuses it too); summaries and results are searchable by player and table.
Export jobs are listed with their status and a download link, and staff can export any
player's hands (every card) from a page of their own; every such export is recorded."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from core.admin import ReadOnlyAdmin
from core.errors import DomainError, NotFound
from handhistory.exports import FORMATS
from handhistory.exports.filters import ExportFilters, parse_when
from handhistory.models import Event, ExportJob, HandSummary, PlayerHandResult
from handhistory.selectors import export_job_download
from handhistory.services import export_job_create, hand_view_full_record
from wallet.admin_columns import money_column


class EveryCardAdmin(ReadOnlyAdmin):
    """An admin whose page of one row shows every card of a hand (its events): the page
    passes the every-card rule first and is written on the staff log, as the staff hand
    view is (``hand_view_full_record``); refused, it answers 403 with the rule's words."""

    def hand_of(self, object_id: str) -> int | None:
        """The hand whose cards the row ``object_id`` shows (None: no hand's)."""
        raise NotImplementedError

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        hand_id = self.hand_of(object_id) if object_id.isdigit() else None
        if hand_id is not None:
            try:
                hand_view_full_record(hand_id=hand_id, staff_id=request.user.pk)
            except NotFound:
                pass  # the admin's own answer to a missing row
            except DomainError as error:
                raise PermissionDenied(error.message) from None
        return super().change_view(request, object_id, form_url, extra_context)


@admin.register(Event)
class EventAdmin(EveryCardAdmin):
    list_display = (
        "position",
        "stream",
        "seq",
        "type",
        "actor_kind",
        "actor",
        "client_ip",
        "device_id",
        "recorded_at",
    )
    list_filter = ("type", "actor_kind")
    search_fields = ("=stream", "type")
    list_select_related = ("actor",)

    def hand_of(self, object_id: str) -> int | None:
        stream = Event.objects.filter(pk=object_id).values_list("stream", flat=True).first()
        number = (stream or "").removeprefix("hand-")
        return int(number) if stream and stream != number and number.isdigit() else None


@admin.register(HandSummary)
class HandSummaryAdmin(ReadOnlyAdmin):
    list_display = (
        "hand",
        "table",
        "number",
        "variant",
        "board",
        money_column("total_pot"),
        money_column("rake"),
        "ended_at",
    )
    list_filter = ("table", "variant", "currency")
    search_fields = ("=hand__id", "table__name", "hand__results__player__username")
    list_select_related = ("table", "hand")

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> Any:
        queryset, _ = super().get_search_results(request, queryset, search_term)
        return queryset.distinct(), False


@admin.register(PlayerHandResult)
class PlayerHandResultAdmin(ReadOnlyAdmin):
    list_display = (
        "hand",
        "player",
        "table",
        "seat",
        *(
            money_column(f, currency="table.currency")
            for f in ("starting_stack", "final_stack", "net")
        ),
        "showed",
        "ended_at",
    )
    list_filter = ("table",)
    search_fields = ("player__username", "=player__id", "table__name", "=hand__id")
    list_select_related = ("player", "table", "hand")


class PlayerExportForm(forms.Form):
    player = forms.CharField(max_length=150, help_text="The player's username.")
    format = forms.ChoiceField(choices=[(name, name) for name in sorted(FORMATS)])
    table = forms.IntegerField(required=False, min_value=1, help_text="Only this table (id).")
    since = forms.CharField(required=False, help_text="ISO date or date-time, by hand end (UTC).")
    until = forms.CharField(required=False, help_text="Exclusive; a date alone includes that day.")


@admin.register(ExportJob)
class ExportJobAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "requester",
        "source",
        "format",
        "full",
        "status",
        "progress_percent",
        "created_at",
        "finished_at",
        "size",
        "download",
    )
    list_filter = ("status", "source", "format", "full")
    search_fields = ("=id", "requester__username")
    list_select_related = ("requester",)
    change_list_template = "admin/handhistory/exportjob/change_list.html"

    @admin.display(description="progress")
    def progress_percent(self, job: ExportJob) -> str:
        total = "?" if job.hands_total is None else job.hands_total
        return f"{job.hands_done}/{total} ({job.progress:.0%})"

    @admin.display(description="file")
    def download(self, job: ExportJob) -> str:
        if job.status != ExportJob.Status.SUCCEEDED or not job.file_name:
            return "-"
        url = reverse("admin:handhistory_exportjob_download", args=[job.pk])
        return format_html('<a href="{}">download</a>', url)

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<id:job_id>/download/",
                self.admin_site.admin_view(self.download_view),
                name="handhistory_exportjob_download",
            ),
            path(
                "export-player/",
                self.admin_site.admin_view(self.export_player_view),
                name="handhistory_exportjob_export_player",
            ),
        ]
        return own + super().get_urls()

    def download_view(self, request: HttpRequest, job_id: int) -> HttpResponseBase:
        """Any job's file, for staff who may view export jobs."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            download = export_job_download(job_id=job_id, requester_id=None)
        except DomainError as error:
            self.message_user(request, error.message, messages.ERROR)
            return HttpResponseRedirect(reverse("admin:handhistory_exportjob_changelist"))
        return FileResponse(
            download.file,
            as_attachment=True,
            filename=download.filename,
            content_type=download.content_type,
        )

    def export_player_view(self, request: HttpRequest) -> HttpResponse:
        """Queues an export of one player's hands with every card (a recorded staff
        export, listed here once queued)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = PlayerExportForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                job, _ = export_job_create(
                    requester=request.user,
                    fmt=data["format"],
                    filters=ExportFilters(
                        player=data["player"],
                        tables=(data["table"],) if data["table"] else (),
                        since=parse_when(data["since"], field="since") if data["since"] else None,
                        until=(
                            parse_when(data["until"], field="until", end=True)
                            if data["until"]
                            else None
                        ),
                    ),
                    source=ExportJob.Source.ADMIN,
                )
            except DomainError as error:
                form.add_error(None, error.message)
            else:
                self.message_user(request, f"Export {job.pk} of {data['player']}'s hands queued.")
                return HttpResponseRedirect(reverse("admin:handhistory_exportjob_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Export a player's hands",
            "form": form,
        }
        return TemplateResponse(request, "admin/handhistory/exportjob/export_player.html", context)
