"""The table fixtures of tests/poker, for the storage-branch tests here."""

from tests.poker.conftest import player, table  # noqa: F401 - fixtures
