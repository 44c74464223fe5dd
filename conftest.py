"""Shared fixtures. The suite runs on real PostgreSQL and Redis (see scripts/with_services.py)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from hypothesis import settings as hypothesis_settings

from tests.support import emptying

# Property tests: a modest default for `make test`, and a deep run (`make test-deep`) of
# many more examples; HYPOTHESIS_PROFILE picks one. No deadline: on a shared machine a slow
# example is not a failure (speed is measured by the benchmarks).
hypothesis_settings.register_profile("default", max_examples=50, deadline=None, print_blob=True)
hypothesis_settings.register_profile("deep", max_examples=2000, deadline=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

_counter = itertools.count()

# The suite deals the next hand at once (POKER_HAND_PAUSE_MS=0), as it did before the pause
# between hands existed; only the tests of the pause itself set one. The environment
# variable reaches the servers the tests start as subprocesses (they copy os.environ); the
# setting covers this process, whose settings may already be loaded (module-scoped
# fixtures included; a test that sets another pause gets this one back after it).
os.environ["POKER_HAND_PAUSE_MS"] = "0"
settings.POKER_HAND_PAUSE_MS = 0

# This process connects without the pool: the races of the concurrency tests run in
# threads that keep their connection to the end of the test and never hand it back, which
# would drain a pool of DB_POOL_MAX_SIZE. The servers the tests start as subprocesses
# pool, like production.
settings.DATABASES["default"].get("OPTIONS", {}).pop("pool", None)

# Users are created here with a one-iteration hash (tests/support/hashers.py): Django's
# full count costs about half a second a user. The servers the tests start keep the full one.
settings.PASSWORD_HASHERS = ["tests.support.hashers.OneIterationPBKDF2", *settings.PASSWORD_HASHERS]

# A transactional test empties only the tables it wrote to (tests/support/emptying.py).
emptying.install()


def pytest_sessionstart(session: pytest.Session) -> None:
    # Never let a misconfigured run pass on the embedded fallbacks: the brief demands
    # real PostgreSQL and Redis under test.
    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine or not settings.REDIS_URL:
        raise pytest.UsageError(
            "Tests need real PostgreSQL and Redis: run `make test` (it finds or starts them), "
            "or set DATABASE_URL=postgres://... and REDIS_URL=redis://..."
        )


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """Creates a user with a unique name; ``staff=True`` for a staff member, ``role=`` for
    one in a staff role's group (``support``, ``finance``, ``risk``, ``admin``)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    def make(
        username: str | None = None,
        *,
        staff: bool = False,
        role: str | None = None,
        password: str = "pw-Str0ng-enough!",
    ) -> Any:
        name = username or f"user{next(_counter)}"
        user = get_user_model().objects.create_user(
            username=name, password=password, is_staff=staff or role is not None
        )
        if role is not None:
            user.groups.add(Group.objects.get(name=role))
        return user

    return make


@pytest.fixture
def api_client() -> Any:
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def auth_client(make_user: Callable[..., Any]) -> Callable[..., Any]:
    """An APIClient authenticated by token as the given (or a new) user."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    def make(user: Any | None = None) -> Any:
        user = user or make_user()
        client = APIClient()
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        client.user = user
        return client

    return make


@pytest.fixture
async def async_db_cleanup() -> Any:
    """Closes the DB connection that Channels' sync-to-async thread opened during an async
    test; otherwise it lingers and blocks dropping the test database at the end."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture(autouse=True)
def _fresh_channel_layers() -> Any:
    """A new channel-layer instance per test: channels-redis binds its receive lock to the
    event loop that first used it, and every async test runs in a loop of its own."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
