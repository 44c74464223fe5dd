"""The staff log's rows: the append-only record of what staff changed."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class StaffAction(models.Model):
    """One change made by a staff member (who, what, to what, when and why).

    Rows are written by ``staff.log.staff_log_record`` inside the transaction of
    the change itself, so a change and its log line commit together or not at all. The
    database refuses UPDATE and DELETE on this table (``backoffice`` migration 0001, which created it; the
    model moved here with its table, ``staff`` migration 0001).
    """

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    #: A stable dotted code: ``withdrawal.approve``, ``kyc.set``, ``restriction.lift``...
    action = models.CharField(max_length=48)
    #: What was changed, as ``kind:id`` (``withdrawal:<uuid>``, ``user:12``, ``case:3``).
    target = models.CharField(max_length=96)
    #: The player concerned, when there is one (a player's profile lists these rows).
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "backoffice_staffaction"
        ordering = ["-at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(action=""), name="backoffice_staffaction_action"),
        ]
        indexes = [models.Index(fields=["subject", "at"], name="backoffice_sa_subject_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_id} {self.action} {self.target}"
