"""manage.py fraud_eval: plays a room into an empty database, scores the detector on it,
and refuses a database that already holds hands (unless told the room's truth)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from fraud.models import IngestedHand
from handhistory.models import Hand

pytestmark = pytest.mark.django_db(transaction=True)
SPEC = "dump:1,soft:1,share:1,ring:1,friends:1,household:1,tight_passive:1"


def test_fraud_eval_plays_a_room_and_prints_the_figures_of_each_scheme(tmp_path):
    out = StringIO()
    figures = tmp_path / "eval.json"
    call_command("fraud_eval", seed=91, players=16, hands=60, rings=SPEC, workers=1,
                 checkpoints=2, json=str(figures), stdout=out, stderr=StringIO())  # fmt: skip
    printed = out.getvalue()
    for scheme in ("chip_dumping", "soft_play", "card_sharing", "ring"):
        assert f"  {scheme} " in printed
    assert "precision of the top 20" in printed and "hard negatives in the top 20" in printed
    data = json.loads(figures.read_text())
    hands = Hand.objects.filter(ended_at__isnull=False).count()
    assert data["hands"] == hands == IngestedHand.objects.count() >= 60
    assert set(data["per_scheme"]) == {"chip_dumping", "soft_play", "card_sharing", "ring"}
    assert data["per_scheme"]["ring"]["groups"] == 1

    with pytest.raises(CommandError, match="already holds hands"):
        call_command("fraud_eval", seed=92, players=16, hands=60, rings=SPEC, stdout=StringIO())
    truth = settings.BASE_DIR / "var" / "fraud" / "room-91.json"
    again = tmp_path / "again.json"
    call_command("fraud_eval", truth=str(truth), checkpoints=1, json=str(again),
                 stdout=StringIO(), stderr=StringIO())  # fmt: skip
    assert json.loads(again.read_text())["pairs_scored"] == data["pairs_scored"]


def test_fraud_eval_refuses_to_score_a_room_without_finished_hands(tmp_path):
    truth = tmp_path / "room.json"
    truth.write_text(json.dumps({"seed": 1, "groups": [], "players": {}}))
    with pytest.raises(CommandError, match="No finished hand"):
        call_command("fraud_eval", truth=str(truth), stdout=StringIO(), stderr=StringIO())


def test_fraud_eval_reports_the_false_alarm_rate_over_many_pure_engine_rooms(tmp_path):
    out = StringIO()
    figures = tmp_path / "alarms.json"
    call_command("fraud_eval", false_alarms=2, seed=5, players=6, tables=3, hands=300,
                 rings="dump:1,soft:0,share:0,ring:0,friends:0,household:0,tight_passive:0,heads_up:1",
                 json=str(figures), stdout=out, stderr=StringIO())  # fmt: skip
    data = json.loads(figures.read_text())
    assert data["rooms"] == 2 and data["hands"] == 600 and data["tables"] == 3
    assert data["honest_pairs"] > 0 and data["colluding_found"]["chip_dumping"]["pairs"] >= 1
    assert data["false_alarm_rate"] == data["false_alarms"] / data["honest_pairs"]
    assert "false alarms among" in out.getvalue() and "chip_dumping" in out.getvalue()
    assert not Hand.objects.exists()  # played on the pure engine: nothing written
