import random

from poker.commands.seating import table_sit
from tests.poker.conftest import player, table  # noqa: F401 - shared table fixtures
from tests.support.poker import actor_for, key, play_random_hands


def raked_table_played(make_table, make_player, *, hands, seed):
    """A three-handed table with 5% rake (capped at 300) after ``hands`` random hands;
    returns (table, players)."""
    t = make_table(rake_bps=500, rake_cap=300)
    users = [make_player() for _ in range(3)]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    play_random_hands(t, users, hands, random.Random(seed))
    return t, users
