import random

import pytest

from poker.commands.seating import table_sit, table_top_up
from poker.commands.staff import staff_actor, table_pause
from tests.poker.conftest import player, table  # noqa: F401 - shared table fixtures
from tests.support.poker import actor_for, key, play_random_hands


@pytest.fixture
def room(table, player):  # noqa: F811 - the shared fixtures
    """A played room at rest: a raked table after a few random hands where a player sat
    down during the last hand, which staff then let finish (the table paused: no next
    hand), and a player topped up after it; and a second table nobody played at.
    Returns (table, users)."""
    t = table(rake_bps=500, rake_cap=300)
    users = [player() for _ in range(3)]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    rng = random.Random(11)
    play_random_hands(t, users, 4, rng)
    late = player()
    table_sit(table_id=t.pk, player_id=late.pk, buy_in=3_000, key=key(), actor=actor_for(late))
    users.append(late)
    table_pause(table_id=t.pk, actor=staff_actor(None))
    play_random_hands(t, users, 1, rng)
    t.refresh_from_db()
    assert t.current_hand_id is None
    stacks = {s.player_id: s.stake_account.balance for s in t.seats.select_related("stake_account")}
    topped = next(u for u in users if 0 < stacks[u.pk] <= t.max_buy_in - 1_000)
    # A stack below the minimum buy-in tops up at least to it.
    amount = max(1_000, t.min_buy_in - stacks[topped.pk])
    table_top_up(table_id=t.pk, player_id=topped.pk, amount=amount, key=key(),
                 actor=actor_for(topped))  # fmt: skip
    table(name="empty")
    return t, users
