"""The analysis job on real stored hands (PostgreSQL): counting each hand once, progress,
rings as one case, context from recorded addresses, and nothing outside fraud changed."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from config.celery import app as celery_app
from fraud.analysis import analysis_chunk, analysis_run, analysis_start
from fraud.detect import PairScore, suspicions
from fraud.ingest import chunk_ingest
from fraud.models import AnalysisRun, Case, IngestedHand, PairEvidence, PairStat
from fraud.services import cases_sync
from fraud.tasks import analyse
from handhistory.models import Event, Hand
from ledger.models import Transfer
from tests.support.poker import play_hands_with_rebuys
from tests.support.threads import race

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def played(player, table):
    """Three players and 12 finished hands at one table."""
    from poker.commands.seating import table_sit
    from tests.support.poker import actor_for, key

    users = [player(amount=1_000_000) for _ in range(3)]
    t = table()
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    play_hands_with_rebuys(t, users, [10_000] * 3, 12, random.Random(5))
    return users


def _stats():
    fields = ("player_id", "partner_id", "hands", "ev_net", "soft_opp", "soft_agg", "fold_opp",
              "fold_cnt", "share_t", "share_v")  # fmt: skip
    return sorted(PairStat.objects.values_list(*fields))


def _hands_together():
    """Ordered pair -> finished hands both were dealt in, from the hands themselves."""
    together = {}
    for ids in Hand.objects.filter(ended_at__isnull=False).values_list("player_ids", flat=True):
        for a in ids:
            for b in ids:
                if a != b:
                    together[(a, b)] = together.get((a, b), 0) + 1
    return together


def test_running_the_analysis_twice_over_the_same_hands_changes_nothing(played):
    first = analysis_run()
    ended = Hand.objects.filter(ended_at__isnull=False).count()
    assert first.status == AnalysisRun.Status.SUCCEEDED
    assert first.hands_total == ended == IngestedHand.objects.count()
    assert first.chunks_done == first.chunks_total
    before = _stats()
    assert {(a, b): n for a, b, n, *_ in before} == _hands_together()

    second = analysis_run()
    assert second.hands_total == 0
    assert _stats() == before
    # A chunk given again by hand (a retried Celery task) counts nothing twice either.
    assert chunk_ingest(hand_ids=list(Hand.objects.values_list("pk", flat=True))).hands == 0
    assert _stats() == before


def test_a_rebuild_counts_every_hand_again_to_the_same_figures(played):
    analysis_run()
    before = _stats()
    rebuilt = analysis_run(rebuild=True)
    assert rebuilt.rebuild and rebuilt.hands_total == IngestedHand.objects.count()
    assert _stats() == pytest.approx(before)


# Workers race on connections of their own.
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_on_one_chunk_count_each_hand_once(played):
    plan = analysis_start()
    [chunk] = plan.chunks
    assert not race(lambda: analysis_chunk(run_id=plan.run_id, hand_ids=chunk))
    assert IngestedHand.objects.count() == len(chunk)
    assert {(a, b): n for a, b, n, *_ in _stats()} == _hands_together()


def test_new_hands_are_counted_from_the_watermark(played, player, table):
    analysis_run()
    counted = IngestedHand.objects.count()
    from poker.commands.seating import table_sit
    from tests.support.poker import actor_for, key

    t = table(name="second")
    for u in played:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    play_hands_with_rebuys(t, played, [10_000] * 3, 3, random.Random(6))
    run = analysis_run()
    assert run.hands_total == Hand.objects.filter(table=t, ended_at__isnull=False).count()
    assert IngestedHand.objects.count() == counted + run.hands_total


def test_the_analysis_changes_no_hand_event_and_no_transfer(played):
    events, transfers = Event.objects.count(), Transfer.objects.count()
    analysis_run()
    assert (Event.objects.count(), Transfer.objects.count()) == (events, transfers)


def _score(a, b, z, kind=Case.Kind.CARD_SHARING):
    zs = {k: 0.0 for k in (Case.Kind.CHIP_DUMPING, Case.Kind.SOFT_PLAY, Case.Kind.CARD_SHARING)}
    zs[kind] = z
    return PairScore(a=a, b=b, hands=500, z=zs, features={}, flow_bb=0.0)


def test_three_linked_players_are_one_ring_case_and_not_three_pair_cases(make_user):
    ring = sorted(make_user().pk for _ in range(3))
    pair = sorted(make_user().pk for _ in range(2))
    outsider = make_user().pk
    scores = [
        _score(ring[0], ring[1], 9.0), _score(ring[1], ring[2], 8.0), _score(ring[0], ring[2], 7.5),
        _score(*pair, 6.0, Case.Kind.CHIP_DUMPING), _score(ring[0], outsider, 1.0),
    ]  # fmt: skip
    found = suspicions(sorted(scores, key=lambda s: -s.score))
    by_subject = {s.subject: s for s in found}
    assert set(by_subject) == {f"ring:{'-'.join(map(str, ring))}", f"pair:{pair[0]}-{pair[1]}"}
    ring_case = by_subject[f"ring:{'-'.join(map(str, ring))}"]
    assert ring_case.kinds[:2] == (Case.Kind.RING, Case.Kind.CARD_SHARING)
    assert len(ring_case.pairs) == 3


def test_shared_addresses_are_context_and_do_not_change_the_score(played):
    a, b, _ = played  # every action of theirs was recorded from 127.0.0.1 (actor_for)
    found = suspicions([_score(min(a.pk, b.pk), max(a.pk, b.pk), 6.0)])
    [s] = found
    assert s.score == 6.0
    assert s.context["shared_addresses"] == ["127.0.0.1"]
    assert sorted(s.context["usernames"]) == sorted([a.username, b.username])


def test_fraud_analyse_prints_a_summary(played, capsys):
    call_command("fraud_analyse", verbosity=0)
    out = capsys.readouterr().out
    assert f"{Hand.objects.filter(ended_at__isnull=False).count()} hands counted" in out
    assert "pairs scored" in out


@pytest.fixture
def fraud_workers(settings):
    """Two real Celery worker processes on a queue of their own, on this test database."""
    queue = f"test-fraud-{uuid.uuid4().hex[:10]}"
    db = connection.settings_dict
    env = {**os.environ, "CELERY_QUEUE": queue,
           "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}  # fmt: skip
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-Q",
                queue,
                "-c",
                "1",
                "--pool",
                "solo",
                "--without-gossip",
                "--without-mingle",
                "--loglevel",
                "WARNING",
                "-n",
                f"fraud{i}-{queue}@%h",
            ],
            cwd=ROOT,
            env=env,
        )
        for i in range(2)
    ]
    conf = celery_app.conf
    before = conf.task_default_queue
    conf.task_default_queue = queue
    try:
        yield queue
    finally:
        conf.task_default_queue = before
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)


# Workers race on connections of their own.
@pytest.mark.django_db(transaction=True)
def test_the_beat_job_shares_its_chunks_among_workers_then_scores(played, fraud_workers, settings):
    settings.FRAUD_CHUNK_HANDS = 4
    run_id = analyse()
    run = AnalysisRun.objects.get(pk=run_id)
    assert run.chunks_total >= 3
    deadline = time.monotonic() + 90
    while run.status == AnalysisRun.Status.RUNNING and time.monotonic() < deadline:
        time.sleep(0.5)
        run.refresh_from_db()
    assert run.status == AnalysisRun.Status.SUCCEEDED, run.error
    assert run.chunks_done == run.chunks_total and run.hands_done == run.hands_total
    assert "pairs_scored" in run.summary
    assert {(a, b): n for a, b, n, *_ in _stats()} == _hands_together()
    # While a run is going, the next beat tick does not start another.
    AnalysisRun.objects.create(watermark=0)
    assert analyse() is None


def test_a_case_from_the_analysis_renders_on_the_review_page_and_runs_show_progress(
    played, admin_client
):
    a, b, _ = played
    analysis_run()
    found = suspicions([_score(min(a.pk, b.pk), max(a.pk, b.pk), 6.0, Case.Kind.CHIP_DUMPING)])
    cases_sync(suspicions=found)
    case = Case.objects.get(subject=found[0].subject)
    page = admin_client.get(f"/admin/fraud/case/{case.pk}/change/")
    assert page.status_code == 200
    assert a.username in page.content.decode() and "127.0.0.1" in page.content.decode()
    runs = admin_client.get("/admin/fraud/analysisrun/")
    assert runs.status_code == 200
    ended = Hand.objects.filter(ended_at__isnull=False).count()
    assert f"{ended:,} / {ended:,}" in runs.content.decode()


def test_a_player_linked_to_one_ring_member_only_is_not_in_the_ring(make_user):
    ring = sorted(make_user().pk for _ in range(3))
    regular = make_user().pk
    scores = [
        _score(ring[0], ring[1], 9.0), _score(ring[1], ring[2], 8.0), _score(ring[0], ring[2], 7.5),
        _score(min(ring[0], regular), max(ring[0], regular), 5.5, Case.Kind.SOFT_PLAY),
    ]  # fmt: skip
    found = suspicions(sorted(scores, key=lambda s: -s.score))
    subjects = {s.subject for s in found}
    assert f"ring:{'-'.join(map(str, ring))}" in subjects
    assert f"pair:{min(ring[0], regular)}-{max(ring[0], regular)}" in subjects


def test_under_make_run_the_beat_job_runs_whole_in_process(played):
    """Embedded mode: eager Celery runs the chord's chunks and the scoring at once."""
    conf = celery_app.conf
    before = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    try:
        run_id = analyse.delay().get()
    finally:
        conf.task_always_eager, conf.task_eager_propagates = before
    run = AnalysisRun.objects.get(pk=run_id)
    assert run.status == AnalysisRun.Status.SUCCEEDED
    assert run.hands_done == run.hands_total == Hand.objects.filter(ended_at__isnull=False).count()


def test_a_case_lists_each_evidence_hand_once_with_its_heaviest_reason(played):
    a, b, _ = played
    hand = Hand.objects.filter(ended_at__isnull=False).first()
    for weight, street in ((0.97, "turn"), (0.99, "river")):
        PairEvidence.objects.create(player=a, partner=b, kind=Case.Kind.SOFT_PLAY, hand=hand,
                                    weight=weight, reason=f"checked on the {street}")  # fmt: skip
    [found] = suspicions([_score(min(a.pk, b.pk), max(a.pk, b.pk), 6.0, Case.Kind.SOFT_PLAY)])
    assert found.evidence == [{"hand_id": hand.pk, "kind": "soft_play", "weight": 0.99,
                               "reason": "checked on the river"}]  # fmt: skip
