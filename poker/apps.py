from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"

    def ready(self) -> None:
        from core.management.commands.seed_demo import SEED_STEPS
        from poker.seed import seed_demo_tables

        if seed_demo_tables not in SEED_STEPS:
            SEED_STEPS.append(seed_demo_tables)
