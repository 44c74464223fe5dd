"""`manage.py simulate_room`: a room of bots with injected colluders, through the live tables.

Prints what was played and writes the truth (players, groups) as JSON for ``fraud_eval``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from fraud.simulation import RoomSpec, room_simulate


class Command(BaseCommand):
    help = (
        "Simulate a poker room: bots of several styles, chip dumpers, soft players, card "
        "sharers and rings, and honest hard negatives (friends, households), playing NLHE "
        "50/100 through the real table service. Writes the truth as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=60)
        parser.add_argument("--hands", type=int, default=100_000)
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument(
            "--rings",
            default="",
            help="groups per scheme, e.g. dump:2,soft:3,share:3,ring:1 "
            "(also friends, household, tight_passive, heads_up); unnamed ones keep the defaults",
        )
        parser.add_argument("--workers", type=int, default=1, help="worker processes")
        parser.add_argument("--truth", type=Path, help="default: var/fraud/room-<seed>.json")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            spec = RoomSpec.parse(options["rings"])
        except ValueError as error:
            raise CommandError(str(error)) from None
        seed, hands = options["seed"], options["hands"]
        path = options["truth"] or Path(settings.BASE_DIR) / "var" / "fraud" / f"room-{seed}.json"
        with tqdm(
            total=hands, unit="hand", file=self.stderr._out, disable=options["no_progress"]
        ) as bar:

            def tick(done: int, total: int) -> None:
                bar.update(min(done, total) - bar.n)

            try:
                truth = room_simulate(
                    players=options["players"],
                    hands=hands,
                    seed=seed,
                    schemes=spec,
                    workers=options["workers"],
                    progress=tick,
                )
            except ValueError as error:
                raise CommandError(str(error)) from None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(truth.to_json(), indent=2))
        rate = truth.hands / truth.seconds if truth.seconds else 0.0
        self.stdout.write(
            f"Played {truth.hands} hands at {truth.tables} tables with {len(truth.players)} players "
            f"in {truth.seconds:.1f} s ({rate:.1f} hands/s, {options['workers']} worker(s)); "
            f"{len(truth.groups)} groups; {truth.errors} refused command(s). Truth: {path}"
        )
