"""Celery tasks of the ledger."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from ledger.audit import ledger_audit

logger = logging.getLogger("ledger.audit")


@shared_task(name="ledger.audit")  # type: ignore[untyped-decorator]
def ledger_audit_task() -> dict[str, Any]:
    """Runs the audit (scheduled by beat); logs an error with the report on a discrepancy."""
    report = ledger_audit()
    if report.ok:
        logger.info("ledger audit clean", extra={"accounts": report.accounts})
    else:
        logger.error("ledger audit FAILED\n%s", report.render())
    return {"ok": report.ok, "problems": report.problems, "currencies": report.currencies}
