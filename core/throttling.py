"""Login throttling, by account and by address, for the API token and the web login.

Built on DRF's ``SimpleRateThrottle`` (its cache keys, history and ``wait``), on Django's
cache: Redis in production and tests, local memory under ``make run``. Unlike DRF's
request throttles, only FAILED logins count: a check reads the history without adding to
it, and ``login_failed`` adds one. So people and bots that log in correctly are never
throttled, while a password guesser is stopped after ``LOGIN_THROTTLE_ACCOUNT_ATTEMPTS``
failures for one account (from any address) or ``LOGIN_THROTTLE_ADDRESS_ATTEMPTS`` from
one address (for any account) within ``LOGIN_THROTTLE_WINDOW_S`` -- and then even the
right password is refused until the window has moved on. Two failures at the very same
moment may be counted once (the history is read, then written): a guesser gains at most
the number of requests it can keep in flight at once.

While the shared cache cannot be reached (Redis down), logins still work: the failures
are counted in this process's memory meanwhile (a guesser spread over N processes gets N
times the allowance, still bounded), the switch and the return are logged, and
``/healthz`` reports the login throttle as degraded (``login_throttle_health``).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.throttling import SimpleRateThrottle

from core.ws_guard import LAYER_ERRORS as UNREACHABLE

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Where failures are counted while the shared cache is unreachable: this process only.
#: Entries expire with the window; the bound keeps a flood of names from growing it.
_LOCAL = LocMemCache("login-throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 10_000}})
#: Whether the last use of the shared cache failed (to log the switch and the return once).
_shared_down = False


def _counted(operation: Callable[[BaseCache], _T]) -> _T:
    """``operation`` on the shared cache, or on this process's while that is unreachable."""
    global _shared_down
    try:
        result = operation(caches["default"])
    except UNREACHABLE as exc:
        if not _shared_down:
            logger.warning(
                "login throttle: shared cache unreachable, counting failed logins "
                "per-process until it answers again",
                extra={"error": f"{type(exc).__name__}: {exc}"[:200]},
            )
        _shared_down = True
        return operation(_LOCAL)
    if _shared_down:
        logger.warning("login throttle: shared cache reachable again")
        _shared_down = False
    return result


def login_throttle_health() -> str:
    """For ``/healthz``: which store counts failed logins; raises while it is the fallback."""
    try:
        caches["default"].get("login-throttle-probe")
    except UNREACHABLE as exc:
        raise RuntimeError(
            f"shared cache unreachable ({type(exc).__name__}): failed logins are counted "
            "per-process"
        ) from exc
    return f"shared ({type(caches['default']).__name__})"


class _LoginThrottle(SimpleRateThrottle):
    #: The setting holding how many failures the window allows.
    attempts_setting: ClassVar[str]

    def __init__(self, ident: str) -> None:
        self.ident = ident
        super().__init__()

    def get_rate(self) -> str:
        return self.scope  # any non-None rate: ``parse_rate`` reads the settings

    def parse_rate(self, rate: str | None) -> tuple[int, int]:
        attempts = int(getattr(settings, self.attempts_setting))
        return attempts, int(settings.LOGIN_THROTTLE_WINDOW_S)

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}

    def over(self, request: HttpRequest) -> bool:
        """Whether the failures in the window already reach the allowance (records nothing)."""
        self.key = self.get_cache_key(request, None)
        self.history = _counted(lambda cache: cache.get(self.key, []))
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def record(self, request: HttpRequest) -> None:
        """Adds one failure now."""
        self.over(request)
        self.history.insert(0, self.now)
        _counted(lambda cache: cache.set(self.key, self.history, self.duration))


class _AddressThrottle(_LoginThrottle):
    scope = "login_address"
    attempts_setting = "LOGIN_THROTTLE_ADDRESS_ATTEMPTS"


class _AccountThrottle(_LoginThrottle):
    scope = "login_account"
    attempts_setting = "LOGIN_THROTTLE_ACCOUNT_ATTEMPTS"


def _throttles(request: HttpRequest, username: str) -> list[_LoginThrottle]:
    # DRF's get_ident: REMOTE_ADDR, or X-Forwarded-For only behind NUM_PROXIES proxies.
    address = _AddressThrottle("-").get_ident(request)
    # Any case of a name is one account to a guesser; hashed, so any name fits a key.
    account = hashlib.sha256(username.casefold().encode()).hexdigest()
    return [_AddressThrottle(address), _AccountThrottle(account)]


def login_throttle_check(request: HttpRequest, username: str) -> None:
    """Raises ``Throttled`` (429, with the wait) when the address or the account has used
    up its failed logins in the window. Call before checking the password."""
    waits = [t.wait() or 0.0 for t in _throttles(request, username) if t.over(request)]
    if waits:
        raise Throttled(wait=max(waits), detail="Too many login attempts.")


def login_failed(request: HttpRequest, username: str) -> None:
    """Counts one failed login against the address and the account."""
    for throttle in _throttles(request, username):
        throttle.record(request)
