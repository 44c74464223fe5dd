from django.apps import AppConfig


class HandHistoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "handhistory"
