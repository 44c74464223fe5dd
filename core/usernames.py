"""One name per person to the eye.

A username is stored NFKC-normalised (Django's ``normalize_username``: fullwidth and
compatibility forms fold to their plain letters), and its key, that stored form in lower
case, is unique: ``alice``, ``Alice`` and a fullwidth ``ALICE`` are one name. The database holds the
rule itself (a unique index on ``lower(username)``, migration ``core.0001``), so two
sign-ups racing cannot both win, and every way of creating a user (the API, the sign-up
page, the admin, ``createsuperuser``) meets it. A name mixing scripts with look-alike
characters (``paypal`` with a Cyrillic ``a``) is refused, by Unicode's confusables data as
packaged in ``confusable_homoglyphs``; a name written wholly in another script is welcome.

Logins stay exact: the name is typed as it was signed up (accounts that clashed before
the index, which the migration reported and left alone, stay distinct).
"""

from __future__ import annotations

import unicodedata

from confusable_homoglyphs import confusables
from django.contrib.auth import get_user_model
from django.db.models import Value
from django.db.models.functions import Lower

from core.errors import Conflict, InvalidRequest


def username_check(*, username: str) -> None:
    """Raises ``InvalidRequest`` (``invalid_username``) for a mixed-script look-alike and
    ``Conflict`` (``username_taken``) when an account has the same key."""
    if confusables.is_dangerous(username):
        raise InvalidRequest(
            f"The username {username!r} mixes alphabets with look-alike characters; "
            "write it in one alphabet.",
            code="invalid_username",
        )
    stored = unicodedata.normalize("NFKC", username)
    users = get_user_model().objects.annotate(key=Lower("username"))
    if users.filter(key=Lower(Value(stored))).exists():
        raise username_taken(username)


def username_taken(username: str) -> Conflict:
    return Conflict(
        f"The username {username!r} is taken (names differing only in case are one name).",
        code="username_taken",
    )
