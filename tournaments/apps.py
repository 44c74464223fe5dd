from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from handhistory.verification import stream_reader_register
        from tournaments.events import tournament_event_problem

        # The event store checks that every event of a tournament stream is one we read.
        stream_reader_register("tournament-", tournament_event_problem)

        from poker import tournament_hooks
        from tournaments.director import hand_finished, level_of, may_deal, tournament_start
        from tournaments.services import tournament_full_register

        # The tournament tables read the level, report each hand's end and ask before
        # dealing here.
        tournament_hooks.register(level_of=level_of, hand_finished=hand_finished, may_deal=may_deal)
        # A sit-and-go starts once the registration that fills it commits.
        tournament_full_register(lambda pk: tournament_start(tournament_id=pk))

        from django.db.models.signals import post_migrate

        from core.management.commands.seed_demo import SEED_STEPS
        from tournaments.seed import seed_demo_tournaments, ship_structure_templates

        post_migrate.connect(ship_structure_templates, sender=self)

        if seed_demo_tournaments not in SEED_STEPS:
            SEED_STEPS.append(seed_demo_tournaments)

        from handhistory.exports.tournaments import tournament_facts_register
        from tournaments.summaries import tournament_hand_facts

        # The hand-history exports print each tournament hand's tournament.
        tournament_facts_register(tournament_hand_facts)
