"""The admin of the blind structure templates: staff edit them here (each save is held to
the structure's rules by ``StructureTemplate.clean``)."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import StructureTemplate


@admin.register(StructureTemplate)
class StructureTemplateAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # django-stubs: generic in the model
    list_display = ("name", "description", "level_count", "updated_at")
    search_fields = ("name",)

    @admin.display(description="levels")
    def level_count(self, template: StructureTemplate) -> int:
        return len(template.levels or [])
