from django.apps import AppConfig


class FraudConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "fraud"

    def ready(self) -> None:
        from fraud.facts import store_hand_facts, stored_hand_facts
        from handhistory import derived

        # Each finished hand's facts are a derived hand product (handhistory.derived): the
        # backlog beat stores them soon after the hand ends, so counting only sums them.
        derived.register("fraud_facts", derive=store_hand_facts, stored=stored_hand_facts)
