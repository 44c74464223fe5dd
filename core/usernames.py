"""One name per person to the eye.

A username is stored NFKC-normalised (Django's ``normalize_username``: fullwidth and
compatibility forms fold to their plain letters), and its key, that stored form in lower
case, is unique: ``alice``, ``Alice`` and a fullwidth ``ALICE`` are one name. The database holds the
rule itself (a unique index on ``lower(username)``, migration ``core.0001``), so two
sign-ups racing cannot both win, and every way of creating a user (the API, the sign-up
page, the admin, ``createsuperuser``) meets it. A name mixing scripts with look-alike
characters (``paypal`` with a Cyrillic ``a``) is refused, by Unicode's confusables data as
packaged in ``confusable_homoglyphs``; a name written wholly in another script is welcome,
unless it looks like a name already taken: every account's *skeleton* (Unicode TR39: each
character replaced by the prototype it is confusable with, then lower case; Cyrillic
``\u0441\u043e\u0441\u043e`` and Latin ``coco`` share one, as do ``paypa1`` and ``PAYPAL``)
is unique too, in ``core.UsernameSkeleton``, written with the account in the same
transaction.

Logins stay exact: the name is typed as it was signed up (accounts that clashed before
the index, which the migration reported and left alone, stay distinct).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

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
    from core.models import UsernameSkeleton

    if UsernameSkeleton.objects.filter(skeleton=username_skeleton(username)).exists():
        raise username_taken(username, looks_like=True)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character -> the prototype it is confusable with (Unicode's confusables.txt, as
    ``confusable_homoglyphs`` packages it: a character that is not a prototype lists
    exactly its prototype)."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    return {char: found[0]["c"] for char, found in data.items() if len(found) == 1}


def username_skeleton(username: str) -> str:
    """What ``username`` looks like: NFKC, each character as its confusables prototype,
    lower case (Cyrillic ``"\u0441\u043e\u0441\u043e"``, ``"coco"`` and ``"COCO"`` all give ``"coco"``)."""
    prototypes = _prototypes()
    name = unicodedata.normalize("NFKC", username)
    return unicodedata.normalize("NFKC", "".join(prototypes.get(c, c) for c in name).lower())


def username_taken(username: str, *, looks_like: bool = False) -> Conflict:
    why = (
        "it looks the same as a name already taken"
        if looks_like
        else "names differing only in case are one name"
    )
    return Conflict(f"The username {username!r} is taken ({why}).", code="username_taken")
