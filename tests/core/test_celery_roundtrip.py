"""A task goes through the real Redis broker to a real worker process and back."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from core.tasks import ping

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def celery_worker_queue():
    queue = f"test-{uuid.uuid4().hex[:12]}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "-c", "1",
         "--pool", "solo", "--without-gossip", "--without-mingle", "--loglevel", "WARNING"],
        cwd=ROOT,
        env=os.environ.copy(),
    )  # fmt: skip
    try:
        yield queue
    finally:
        worker.terminate()
        worker.wait(timeout=20)


def test_task_round_trip_through_real_worker_and_redis_broker(celery_worker_queue):
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    result = ping.apply_async(kwargs={"echo": "round-trip"}, queue=celery_worker_queue)
    answer = result.get(timeout=60)
    assert answer["echo"] == "round-trip"
    assert answer["worker"]
