"""Keeps each account's username skeleton (``core.models.UsernameSkeleton``) with the
account: written in the save that creates or renames it, so the unique skeleton holds for
every way of making an account (the API, the sign-up page, the admin, ``createsuperuser``)
and two look-alike sign-ups racing cannot both win."""

from __future__ import annotations

from typing import Any


def username_skeleton_keep(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    from core.models import UsernameSkeleton
    from core.usernames import username_skeleton

    fields = kwargs.get("update_fields")
    if not created and fields is not None and "username" not in fields:
        return  # a login's last_login, a password change: the name is as it was
    skeleton = username_skeleton(instance.get_username())
    if created:
        UsernameSkeleton.objects.create(user=instance, skeleton=skeleton)
    else:
        UsernameSkeleton.objects.filter(user=instance).exclude(skeleton=skeleton).update(
            skeleton=skeleton
        )
