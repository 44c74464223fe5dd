from django.apps import AppConfig


class HandHistoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "handhistory"

    def ready(self) -> None:
        from handhistory import derived, stored_texts
        from handhistory.selectors import results_by_month
        from wallet.selectors import PLAY

        # The export texts are a derived hand product (handhistory.derived).
        derived.register(
            stored_texts.PRODUCT, derive=stored_texts.derive, stored=stored_texts.stored
        )
        # The account history's hand columns (the wallet below reads them through PLAY).
        PLAY.results_by_month = results_by_month
