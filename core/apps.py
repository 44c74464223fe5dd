from django.apps import AppConfig
from django.urls import register_converter


class CoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from core.converters import IdConverter
        from core.signals import username_skeleton_keep

        post_save.connect(
            username_skeleton_keep, sender=get_user_model(), dispatch_uid="username_skeleton"
        )

        # Before any URLconf is read (they load on the first request or reverse()).
        register_converter(IdConverter, "id")
