"""The Celery application: configured from Django settings (``CELERY_*``)."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("pokerroom")
# The default app of every thread: ``celery.current_app`` is this one wherever it is read
# (a thread that did not create it would otherwise get an empty default app), so the
# layers below reach it without importing this module.
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# celeryd_init: before the worker's first warning (running as root...).
@signals.celeryd_init.connect  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
@signals.setup_logging.connect  # type: ignore[untyped-decorator]  # Celery's decorators are untyped
def _log_like_django(**kwargs: object) -> None:
    """A receiver of ``setup_logging`` stops Celery from installing its own plain-text
    handlers (worker and beat), so its lines go through Django's LOGGING: one JSON object
    per line, with secrets masked, like the server's."""
    from django.conf import settings

    from core.logging import configure

    configure(settings.LOGGING)
