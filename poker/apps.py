from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"

    def ready(self) -> None:
        from core.exceptions import foreign_error_register
        from core.management.commands.seed_demo import SEED_STEPS
        from poker.engine.errors import EngineError
        from poker.seed import seed_demo_tables

        # The engine's errors answer as 422 like any refused domain request (core imports
        # no app, so the engine's owner registers them).
        foreign_error_register(EngineError, status=422)

        if seed_demo_tables not in SEED_STEPS:
            SEED_STEPS.append(seed_demo_tables)
