"""Structured logging: one JSON object per line, tagged with the request id."""

from __future__ import annotations

import contextvars
import json
import logging
import logging.config
import re
from datetime import UTC, datetime
from typing import Any

#: The id of the request (or task) being handled, set by RequestIdMiddleware.
request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

_STANDARD_ATTRS = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__.keys()
    | {"message", "asctime", "request_id"}
    # uvicorn's copy of the message with terminal colour codes: noise in a JSON line.
    | {"color_message"}
)


class RequestIdFilter(logging.Filter):
    """Stamps every record with the current request id."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        return True


#: Names whose values are secrets wherever they appear: in a query string or a form
#: (``?token=...``), as ``name: value`` or ``"name": "value"`` in a message, or as an
#: ``extra=`` key. "seed" is the deck seed, secret until the hand reveals it.
# A table, one row per line: the formatter leaves it as written (fmt: skip).
SECRET_NAMES = (
    "token", "access_token", "api_key", "apikey", "session_key", "password", "passwd", "secret",
    "sessionid", "session", "csrftoken", "csrfmiddlewaretoken", "csrf", "signature", "seed",
    "authorization", "cookie",
)  # fmt: skip
REDACTED = "[redacted]"
_NAMES = "|".join(sorted(map(re.escape, SECRET_NAMES), key=len, reverse=True))
_SECRET_VALUE = re.compile(
    # name, then = or :, optionally quoted (JSON, repr), then the value up to a separator.
    rf"""(?i)(?<![A-Za-z0-9])((?:[A-Za-z0-9_-]*[_-])?(?:{_NAMES})["']?\s*[=:]\s*["']?)"""
    r"""([^\s&"';}\]]+)"""
)
#: An Authorization header's value (``Token <key>``, ``Bearer <jwt>``) quoted anywhere.
_SCHEME_VALUE = re.compile(r"(?i)\b(Token|Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{8,})")
_SECRET_KEY = re.compile(rf"(?i)(?:^|[_-])(?:{_NAMES})$")


def redact(text: str) -> str:
    """``text`` with every secret value masked.

    >>> redact("WebSocket /ws/tables/2/?token=abc123&x=1")
    'WebSocket /ws/tables/2/?token=[redacted]&x=1'
    """
    text = _SCHEME_VALUE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _SECRET_VALUE.sub(lambda m: m.group(1) + REDACTED, text)


def _redact_value(key: str, value: Any) -> Any:
    if _SECRET_KEY.search(key):
        return REDACTED
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_value(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value("", v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    # Any other object is written as its str(), which may hold a secret: Django's
    # ``request`` extra prints the full path, query string included.
    return redact(str(value))


class RedactFilter(logging.Filter):
    """Masks secrets in a record before any handler writes it: the message (with its
    arguments), every ``extra=`` field and the traceback. It sits on the handler, the one
    place every line passes, whoever logged it (uvicorn, Django, Celery, our code)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        for key, value in list(record.__dict__.items()):
            if key not in _STANDARD_ATTRS and not key.startswith("_"):
                setattr(record, key, _redact_value(key, value))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class QuietPeriodicFilter(logging.Filter):
    """Celery's INFO lines about a periodic task (beat's "Sending due task", the worker's
    "received" and "succeeded") become DEBUG: the sweeper runs every second, and a sweep
    that did nothing must not write a line at INFO. Whatever the task itself logs, and
    Celery's warnings and errors, are untouched."""

    def __init__(self, level: str = "INFO") -> None:
        super().__init__()
        self.keep_debug: bool = logging.getLevelName(level.upper()) == logging.DEBUG
        self._tasks: tuple[str, ...] | None = None

    @property
    def tasks(self) -> tuple[str, ...]:
        """The beat schedule's task names (read once settings are complete)."""
        if self._tasks is None:
            from django.conf import settings

            schedule = settings.CELERY_BEAT_SCHEDULE
            self._tasks = tuple(str(entry["task"]) for entry in schedule.values())
        return self._tasks

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not record.name.startswith("celery"):
            return True
        message = record.getMessage()
        if not any(task in message for task in self.tasks):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return self.keep_debug


class JsonFormatter(logging.Formatter):
    """Renders a record as one JSON line; ``extra=`` fields are kept as keys."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "request_id": getattr(record, "request_id", request_id_var.get()),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD_ATTRS and not key.startswith("_"):
                payload[key] = value
        if record.exc_text:  # already rendered (and redacted) by RedactFilter
            payload["exc"] = record.exc_text
        elif record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str)


def configure(config: dict[str, Any]) -> None:
    """Applies a logging dict config, and sends Python's warnings (``warnings.warn``: Django's
    ASGI handler about a streamed response, Celery about running as root) through it as
    ``py.warnings`` records, so they too are JSON lines rather than plain text on stderr.

    Django's ``LOGGING_CONFIG`` (every process that sets Django up) and Celery's
    ``setup_logging`` (worker and beat) both call it.
    """
    logging.config.dictConfig(config)
    logging.captureWarnings(True)
