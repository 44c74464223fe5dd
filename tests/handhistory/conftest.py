from tests.poker.conftest import player, table  # noqa: F401 - shared table fixtures
