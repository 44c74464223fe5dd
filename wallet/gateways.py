"""Payment gateways behind one small interface.

* ``sandbox`` (an opt-in, ``WALLET_SANDBOX``: on in debug mode and in the test suite,
  refused by production mode while real currencies are enabled): confirms a deposit at
  once, no webhook, no payment.
* ``HmacWebhookGateway`` (configured e.g. as ``test``): a real-gateway stand-in that
  confirms by webhook. The webhook body is JSON::

      {"id": "evt_1", "type": "deposit.succeeded" | "deposit.failed",
       "created": 1700000000, "data": {"deposit_id": "<uuid>", "amount": 1000,
       "currency": "EUR"}}

  signed with ``X-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>``. The timestamp
  ``created`` is inside the signed body, so a captured request cannot be re-sent later
  with a fresh timestamp; events older than the tolerance are refused, and the event id
  is recorded once (a replay within the window is a 200 no-op).

Gateways are configured in ``settings.WALLET_GATEWAYS`` (name -> options); a gateway whose
``secret`` is empty is disabled (404), so production never accepts unsigned webhooks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

from wallet.errors import InvalidSignature, MalformedWebhook, StaleWebhook, UnknownGateway

SIGNATURE_HEADER = "X-Signature"


@dataclass(frozen=True, kw_only=True)
class WebhookEvent:
    event_id: str
    event_type: str
    created: int
    deposit_id: uuid.UUID
    amount: int
    currency: str
    payload: dict[str, Any]


class PaymentGateway:
    """The interface: a name, whether deposits confirm at once, and webhook verification."""

    confirms_immediately = False

    def __init__(self, name: str, **options: Any) -> None:
        self.name = name
        self.options = options

    def verify_webhook(self, *, body: bytes, headers: Mapping[str, str]) -> WebhookEvent:
        raise UnknownGateway(f"The {self.name} gateway sends no webhooks.", gateway=self.name)


class SandboxGateway(PaymentGateway):
    """Confirms every deposit immediately (development and tests)."""

    confirms_immediately = True


def sign(secret: str, body: bytes) -> str:
    """The ``X-Signature`` header value for ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class HmacWebhookGateway(PaymentGateway):
    """Confirms deposits by an HMAC-SHA256-signed webhook."""

    def verify_webhook(self, *, body: bytes, headers: Mapping[str, str]) -> WebhookEvent:
        secret = str(self.options.get("secret", ""))
        given = headers.get(SIGNATURE_HEADER, "")
        if not hmac.compare_digest(given.encode(), sign(secret, body).encode()):
            raise InvalidSignature("The webhook signature does not match.", gateway=self.name)
        try:
            payload = json.loads(body)
            data = payload["data"]
            created, amount = payload["created"], data["amount"]
            if type(created) is not int or type(amount) is not int:
                raise TypeError
            event = WebhookEvent(
                event_id=str(payload["id"])[:128],
                event_type=str(payload["type"])[:64],
                created=created,
                deposit_id=uuid.UUID(str(data["deposit_id"])),
                amount=amount,
                currency=str(data["currency"]),
                payload=payload,
            )
        except (ValueError, KeyError, TypeError):
            raise MalformedWebhook("The webhook body is not a valid event.") from None
        tolerance = int(self.options.get("tolerance_s", settings.WALLET_WEBHOOK_TOLERANCE_S))
        if abs(time.time() - event.created) > tolerance:
            raise StaleWebhook(
                f"The webhook is older than {tolerance}s (or from the future).",
                gateway=self.name,
            )
        return event


def gateway_get(name: str) -> PaymentGateway:
    """The configured gateway called ``name``, or ``UnknownGateway`` (404)."""
    if not name:
        raise UnknownGateway("No payment gateway is configured for deposits.", gateway=name)
    options = dict(settings.WALLET_GATEWAYS.get(name) or {})
    class_path = options.pop("class", "")
    if not class_path or ("secret" in options and not options["secret"]):
        raise UnknownGateway(f"No payment gateway {name!r}.", gateway=name)
    gateway_class = import_string(class_path)
    gateway: PaymentGateway = gateway_class(name, **options)
    return gateway
