from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from handhistory.verification import stream_reader_register
        from tournaments.events import tournament_event_problem

        # The event store checks that every event of a tournament stream is one we read.
        stream_reader_register("tournament-", tournament_event_problem)
