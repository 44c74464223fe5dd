from django.apps import AppConfig


class WalletConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "wallet"
    verbose_name = "Wallet"

    def ready(self) -> None:
        from core.management.commands.seed_demo import SEED_STEPS
        from core.services import REGISTRATION_HOOKS
        from wallet.seed import seed_demo_players
        from wallet.services import signup_grant

        if signup_grant not in REGISTRATION_HOOKS:
            REGISTRATION_HOOKS.append(signup_grant)
        if seed_demo_players not in SEED_STEPS:
            SEED_STEPS.append(seed_demo_players)
