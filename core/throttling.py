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
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.throttling import SimpleRateThrottle


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
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def record(self, request: HttpRequest) -> None:
        """Adds one failure now."""
        self.over(request)
        self.throttle_success()


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
