"""Audit runs in the admin: a read-only list with the status in colour, and each run's
problems on its page."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from audit.models import AuditRun
from core.admin import ReadOnlyAdmin


def status_badge(status: str) -> SafeString:
    """The status word, coloured by class (the CSP allows no inline style)."""
    return format_html('<span class="audit-status audit-{}">{}</span>', status, status)


@admin.register(AuditRun)
class AuditRunAdmin(ReadOnlyAdmin):
    list_display = (
        "check_name",
        "coloured_status",
        "started_at",
        "duration_ms",
        "checked",
        "failure_count",
    )
    list_filter = ("check_name", "status")
    date_hierarchy = "started_at"
    fields = (
        "check_name",
        "coloured_status",
        "started_at",
        "finished_at",
        "duration_ms",
        "checked",
        "failure_count",
        "watermark",
        "failure_list",
        "error",
    )
    readonly_fields = fields

    class Media:
        css = {"all": ["audit/admin.css"]}

    @admin.display(description="status", ordering="status")
    def coloured_status(self, run: AuditRun) -> SafeString:
        return status_badge(run.status)

    @admin.display(description="failures")
    def failure_list(self, run: AuditRun) -> SafeString:
        if not run.failures:
            return format_html("{}", "none")
        items = format_html_join("", "<li>{}</li>", ((f,) for f in run.failures))
        more = run.failure_count - len(run.failures)
        tail = format_html("<li>... and {} more</li>", more) if more else ""
        return format_html('<ul class="audit-failures">{}{}</ul>', items, tail)
