from django.apps import AppConfig


class HandHistoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "handhistory"

    def ready(self) -> None:
        from handhistory import derived
        from handhistory.exports import stored

        # The export texts are a derived hand product (handhistory.derived).
        derived.register(stored.PRODUCT, derive=stored.derive, stored=stored.stored)
