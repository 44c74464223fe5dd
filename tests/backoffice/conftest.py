"""The back office's tests use the fixtures of the apps it watches over."""

from tests.fraud.review.conftest import open_case  # noqa: F401
from tests.poker.conftest import table  # noqa: F401
from tests.wallet.conftest import _fast_passwords, player  # noqa: F401
