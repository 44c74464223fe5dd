"""Infrastructure tasks."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="core.ping")
def ping(echo: str = "") -> dict[str, str]:
    """Answers with what it was given: proves a worker consumed from the broker."""
    import socket

    return {"echo": echo, "worker": socket.gethostname()}
