"""Core's records: the stored responses of idempotent REST requests (``core.idempotency``),
and each account's username skeleton (``core.usernames``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from core.idempotency import REST_KEY_LENGTH


class IdempotencyRecord(models.Model):
    """A stored API response per (user, endpoint, Idempotency-Key); see core.idempotency."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.CharField(max_length=255)
    key = models.CharField(max_length=REST_KEY_LENGTH)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wallet_idempotencyrecord"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "endpoint", "key"], name="wallet_idempotency_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.endpoint} {self.key}"


class UsernameSkeleton(models.Model):
    """What an account's name looks like (``core.usernames.username_skeleton``), unique:
    two accounts never look alike. Written with the account (``core.signals``); accounts
    that already looked alike when this table came were reported by its migration and the
    later ones have no row (nobody renamed)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    skeleton = models.TextField(unique=True)

    def __str__(self) -> str:
        return self.skeleton
