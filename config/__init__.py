import time

from config.celery import app as celery_app

#: When this process started: /healthz gives a fresh process time for the first periodic
#: sweep before it counts a missing one as a dead clock.
STARTED_AT = time.time()

__all__ = ("STARTED_AT", "celery_app")
