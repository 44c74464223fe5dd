"""manage.py fraud_eval --seed S [--players 60] [--hands 100000] [--rings SPEC]: how good
the collusion detector is, on a simulated room whose truth is known.

Plays the room (``simulate_room``, through the live table service; its truth is written to
``var/fraud/room-<seed>.json``) into THIS database,
which must hold no hands yet (a scratch database: ``make bench`` makes one), then counts
the hands in ``--checkpoints`` steps as the beat would, scoring after each step to see
when each colluding group is first found; prints per scheme recall, precision of the top
20 cases, PR-AUC and the hands shared at first detection, the hard negatives in the top
20, and the speed of the counting and the scoring. ``--truth FILE`` scores a room played
before (its hands already in this database) instead of playing one.

``--false-alarms N``: the per-pair false-alarm rate instead, over N rooms (seeds
``--seed``, ``--seed`` + 1, ...) played on the pure engine (``fraud.simulation.pure``: no
database, nothing written), each of ``--players`` at ``--tables`` tables for ``--hands``
hands: how many honest pairs (hard negatives included) reach a case, by kind, and how
many colluding pairs do. Few tables for the players make a short-handed room.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from tqdm import tqdm

from fraud.detect import CASE_Z, pair_scores, score_pairs, suspicions
from fraud.evaluation import (
    COLLUDING,
    TOP,
    alarms_summary,
    evaluate,
    found_by,
    groups_of,
    pair_alarms,
)
from fraud.features import aggregate
from fraud.ingest import chunk_ingest
from fraud.models import IngestedHand, PairEvidence, PairStat
from fraud.services import cases_sync
from fraud.simulation import RoomSpec
from fraud.simulation.pure import room_play
from fraud.simulation.room import room_plan, table_count
from handhistory.models import Hand

#: The --false-alarms rooms' groups: honest pairs of every kind beside a few colluders.
SURVEY_SPEC = "dump:1,soft:1,share:0,ring:0,friends:1,household:0,tight_passive:1,heads_up:2"


class Command(BaseCommand):
    help = "Scores the collusion detector on a simulated room (recall, precision, PR-AUC)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--players", type=int, default=60)
        parser.add_argument("--hands", type=int, default=100_000)
        parser.add_argument("--rings", default=None, help="simulate_room's scheme SPEC")
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--truth", default=None, help="score a room already played")
        parser.add_argument("--checkpoints", type=int, default=10)
        parser.add_argument("--chunk", type=int, default=2_000, help="hands per chunk")
        parser.add_argument("--json", default=None, help="also write the figures here")
        parser.add_argument(
            "--false-alarms",
            type=int,
            default=0,
            metavar="ROOMS",
            help="the false-alarm rate over this many pure-engine rooms",
        )
        parser.add_argument(
            "--tables",
            type=int,
            default=None,
            help="--false-alarms rooms' tables (default: 5.5 players a table)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        if o["false_alarms"]:
            self._false_alarms(o)
            return
        truth = self._truth(o)
        ids = list(
            Hand.objects.filter(ended_at__isnull=False).order_by("pk").values_list("pk", flat=True)
        )
        if not ids:
            raise CommandError("No finished hand to score: the room played none.")
        with transaction.atomic(durable=True):
            PairEvidence.objects.all().delete()
            PairStat.objects.all().delete()
            IngestedHand.objects.all().delete()
        groups = groups_of(truth)
        first: dict[int, int] = {}
        counting = scoring = 0.0
        step = max(1, -(-len(ids) // o["checkpoints"]))
        bar = tqdm(total=len(ids), unit="hand", desc="counting", file=self.stderr._out)  # type: ignore[attr-defined]  # the raw stream behind Django's OutputWrapper, not in the stubs
        for start in range(0, len(ids), step):
            t0 = time.perf_counter()
            for c in range(start, min(start + step, len(ids)), o["chunk"]):
                chunk_ingest(hand_ids=ids[c : min(c + o["chunk"], start + step)])
                bar.update(min(c + o["chunk"], start + step) - c)
            t1 = time.perf_counter()
            scores = pair_scores()
            found = suspicions(scores)
            scoring += time.perf_counter() - t1
            counting += t1 - t0
            head = sorted(found, key=lambda s: -s.score)[:TOP]
            together = {(s.a, s.b): s.hands for s in scores}
            for i, g in enumerate(groups):
                if g.scheme in COLLUDING and i not in first and found_by(g, head):
                    members = sorted(g.players)
                    first[i] = min(
                        together.get((a, b), 0) for a in members for b in members if a < b
                    )
        bar.close()
        synced = cases_sync(suspicions=found)
        report = evaluate(
            truth=truth, scores=scores, found=found, hands=len(ids), first_found=first
        )
        figures = {
            **report.as_dict(),
            "seed": truth.get("seed"),
            "counting_hands_per_s": round(len(ids) / counting, 1) if counting else None,
            "scoring_seconds_last": round(scoring / max(1, -(-len(ids) // step)), 3),
            "cases_opened": synced.opened,
        }
        self._print(figures, report.top)
        if o["json"]:
            Path(o["json"]).parent.mkdir(parents=True, exist_ok=True)
            Path(o["json"]).write_text(json.dumps(figures, indent=2))

    def _false_alarms(self, o: dict[str, Any]) -> None:
        try:
            spec = RoomSpec.parse(o["rings"] or SURVEY_SPEC)
            plans = [
                room_plan(players=o["players"], seed=(o["seed"] or 0) + r, spec=spec)
                for r in range(o["false_alarms"])
            ]
        except ValueError as error:
            raise CommandError(str(error)) from None
        tables = o["tables"] or table_count(o["players"])
        rooms = []
        for plan in tqdm(plans, unit="room", file=self.stderr._out):  # type: ignore[attr-defined]  # the raw stream behind Django's OutputWrapper, not in the stubs
            truth, facts = room_play(plan, hands=o["hands"], tables=tables, seed=plan.seed)
            scores = score_pairs(aggregate(facts))
            rooms.append(pair_alarms(truth=truth.to_json(), scores=scores, case_z=CASE_Z))
        summary = {
            **alarms_summary(rooms),
            "players": o["players"],
            "tables": tables,
            "spec": o["rings"] or SURVEY_SPEC,
            "case_z": CASE_Z,
        }
        self.stdout.write(
            f"{summary['rooms']} rooms of {o['players']} players at {tables} tables, "
            f"{summary['hands']} hands: {summary['false_alarms']} false alarms among "
            f"{summary['honest_pairs']} honest pairs (per-pair rate "
            f"{summary['false_alarm_rate']:.4f}; by kind {summary['false_alarms_by_kind']}; "
            f"rooms with one {summary['rooms_with_a_false_alarm']}; highest honest z "
            f"{summary['max_honest_z']})"
        )
        for scheme, seen in summary["colluding_found"].items():
            self.stdout.write(
                f"  {scheme:<13} colluding pairs {seen['pairs']}  at a case {seen['found']}  "
                f"recall {seen['recall']:.2f}  z {sorted(seen['z'])}"
            )
        for alarm in summary["alarms"]:
            self.stdout.write(f"  false alarm: {alarm}")
        if o["json"]:
            Path(o["json"]).parent.mkdir(parents=True, exist_ok=True)
            Path(o["json"]).write_text(json.dumps(summary, indent=2))

    def _truth(self, o: dict[str, Any]) -> dict[str, Any]:
        if o["truth"]:
            return json.loads(Path(o["truth"]).read_text())  # type: ignore[no-any-return]  # json.loads returns Any
        if o["seed"] is None:
            raise CommandError("Give --seed S to play a room (or --truth FILE to score one).")
        if Hand.objects.exists():
            raise CommandError(
                "This database already holds hands: fraud_eval plays its room into a scratch "
                "database (DATABASE_URL=... manage.py fraud_eval), or scores one with --truth."
            )
        path = Path(settings.BASE_DIR) / "var" / "fraud" / f"room-{o['seed']}.json"
        call_command(
            "simulate_room",
            players=o["players"],
            hands=o["hands"],
            seed=o["seed"],
            rings=o["rings"] or "",
            workers=o["workers"],
            truth=path,
            stdout=self.stdout,
            stderr=self.stderr,
        )
        return json.loads(path.read_text())  # type: ignore[no-any-return]  # json.loads returns Any

    def _print(self, f: dict[str, Any], top: int) -> None:
        self.stdout.write(
            f"{f['hands']} hands, {f['pairs_scored']} pairs scored, {f['cases']} cases; "
            f"precision of the top {top}: {f[f'precision_at_{top}']:.2f}"
        )
        for scheme, s in f["per_scheme"].items():
            self.stdout.write(
                f"  {scheme:<13} groups {s['groups']}  recall {s['recall']:.2f}  "
                f"in top {top} {s[f'recall_in_top_{top}']:.2f}  PR-AUC {s['pr_auc']:.3f}  "
                f"hands shared at first detection {s['hands_to_first_detection']}"
            )
        self.stdout.write(f"  hard negatives in the top {top}: {f['hard_negatives_in_top']}")
        self.stdout.write(
            f"  counting {f['counting_hands_per_s']} hands/s (one process); "
            f"scoring {f['scoring_seconds_last']} s per pass"
        )
