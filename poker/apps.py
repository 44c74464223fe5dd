from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"

    def ready(self) -> None:
        from core.exceptions import foreign_error_register
        from core.management.commands.seed_demo import SEED_STEPS
        from handhistory.services import full_view_gate_register
        from handhistory.verification import stream_reader_register
        from poker.commands.seating import restriction_unseat
        from poker.engine.errors import EngineError
        from poker.full_view import full_view_hands_open, involvement_register, seats_held
        from poker.seed import seed_demo_tables
        from poker.selectors import play_sessions
        from poker.table_events import table_event_problem
        from wallet.responsible import RESTRICTION_HOOKS
        from wallet.selectors import PLAY

        # The engine's errors answer as 422 like any refused domain request (core imports
        # no app, so the engine's owner registers them).
        foreign_error_register(EngineError, status=422)
        # The event store checks that every event of a table stream is one the code reads
        # (handhistory names no table event).
        stream_reader_register("table-", table_event_problem)

        # Every card of hands passes the table's rule (handhistory knows no seats); a seat
        # is one way of being involved at a table (tournaments will register theirs).
        full_view_gate_register(full_view_hands_open)
        involvement_register(seats_held)

        # A time-out or self-exclusion takes the player off the tables (the wallet below
        # names no table).
        if restriction_unseat not in RESTRICTION_HOOKS:
            RESTRICTION_HOOKS.append(restriction_unseat)
        # The account's play sessions are the player's seats (wallet.selectors.PLAY).
        PLAY.sessions = play_sessions
        if seed_demo_tables not in SEED_STEPS:
            SEED_STEPS.append(seed_demo_tables)
