from django.apps import AppConfig
from django.urls import register_converter


class CoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from core.converters import IdConverter

        # Before any URLconf is read (they load on the first request or reverse()).
        register_converter(IdConverter, "id")
