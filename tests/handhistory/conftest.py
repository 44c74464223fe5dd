# ruff: noqa: F811 - the shared table fixtures are imported by name, then requested as arguments
"""Fixtures of the hand-history tests: tables and players (shared with tests/poker), hands
played for the export tests, and the export jobs' storage and queue."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings

from config.celery import app as celery_app
from handhistory.models import Event, Hand
from poker.engine.cards import format_card
from tests.poker.conftest import player, table  # noqa: F401 - shared table fixtures
from tests.support.emptying import module_data
from tests.support.handhistory import played_hands
from tests.support.poker import new_player, new_table
from tests.support.tables_api import check_down, fold_hand, sit, state


@pytest.fixture
def folded_hand(auth_client, table, player) -> dict[str, Any]:
    """A finished three-handed hand: the first to act folded, the other two showed down."""
    t = table()
    clients = [auth_client(player()) for _ in range(3)]
    for seat, client in enumerate(clients, 1):
        sit(client, t.pk, seat=seat)
    while len(Hand.objects.get(pk=state(clients[0], t.pk)["hand"]["id"]).player_ids) < 3:
        fold_hand(clients, t.pk)  # the hand dealt before the third player sat
    hand_id = fold_hand(clients, t.pk)
    assert check_down(clients, t.pk) == hand_id
    hand = Hand.objects.get(pk=hand_id)
    payloads = [e.payload for e in Event.objects.filter(stream=hand.stream).order_by("seq")]
    folder = next(p["player"] for p in payloads if p["type"] == "PlayerFolded")
    dealt = next(
        p["cards"] for p in payloads if p["type"] == "HoleCardsDealt" and p["player"] == folder
    )
    seed = next(p["server_seed"] for p in payloads if p["type"] == "HandEnded")
    by_user = {c.user.pk: c for c in clients}
    others = [by_user[u] for i, u in enumerate(hand.player_ids) if i != folder]
    return {
        "hand": hand_id,
        "folder": by_user[hand.player_ids[folder]],
        "others": others,
        "cards": [format_card(c) for c in dealt],
        "seed": seed,
    }


@pytest.fixture
def exports_root(settings: Any, tmp_path: Path) -> Path:
    """Each test's export files in a directory of its own, read in small chunks."""
    root = tmp_path / "exports"
    settings.STORAGES = {
        **django_settings.STORAGES,
        "exports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    settings.EXPORT_CHUNK_SIZE = 2
    return root


@pytest.fixture
def eager() -> Any:
    """Queued jobs run at once in this process, as under ``make run``."""
    conf = celery_app.conf
    before = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = before


@pytest.fixture
def unconsumed_queue(settings: Any) -> Any:
    """Jobs go to a real Redis queue that no worker reads (they stay queued); the queue is
    deleted afterwards."""
    queue = f"test-exports-{uuid.uuid4().hex[:10]}"
    settings.EXPORT_QUEUE = queue
    yield queue
    client = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    client.delete(queue, f"_kombu.binding.{queue}")


@pytest.fixture
def hands(table: Any, player: Any) -> dict[str, Any]:
    """Three players' hands at one table, and three other players' hands at another."""
    return two_tables_of_hands(table, player)


def two_tables_of_hands(make_table: Any, make_player: Any) -> dict[str, Any]:
    t, users, ids = played_hands(make_table, make_player, hands=5, seed=15)
    _, others, other_ids = played_hands(make_table, make_player, hands=2, seed=16)
    return {"table": t, "users": users, "ids": ids, "others": others, "other_ids": other_ids}


@pytest.fixture(scope="module")
def hands_once(django_db_setup: None, django_db_blocker: Any) -> Any:
    """``hands``, played once for a module whose tests all roll back their own writes:
    committed, so each test finds them as played; emptied after the module."""
    with django_db_blocker.unblock(), module_data():
        yield two_tables_of_hands(new_table, new_player)
