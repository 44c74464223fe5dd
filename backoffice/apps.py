from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "backoffice"
    verbose_name = "Back office"

    def ready(self) -> None:
        from backoffice.seed import seed_demo_staff
        from core.management.commands.seed_demo import SEED_STEPS

        if seed_demo_staff not in SEED_STEPS:
            SEED_STEPS.append(seed_demo_staff)
