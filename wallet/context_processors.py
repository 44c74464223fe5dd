"""What every page needs to know about the signed-in player's account."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from wallet import selectors
from wallet.web_rg import restriction_shown


def _restriction(user_id: int) -> dict[str, Any]:
    own = selectors.account_restrictions(user_id=user_id)
    # The longest first: a self-exclusion outlasts any time-out.
    return restriction_shown(own[0]) if own else {}


def restriction(request: HttpRequest) -> dict[str, Any]:
    """``rg_restriction``: the player's own time-out or self-exclusion in force (the
    longest: ``kind``, ``ends_at``, ``said``), empty when none. Pages show it as a banner
    and offer no Join or Sit while it runs (the server refuses them anyway). Read once,
    when a template first asks."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"rg_restriction": {}}
    return {"rg_restriction": SimpleLazyObject(lambda: _restriction(user.pk))}
