"""A minimal authenticated WebSocket: answers ``ping`` with ``pong`` via the channel layer.

The round trip goes through the channel layer on purpose (the consumer sends the pong
to its own channel name), so a passing ping proves the layer works end to end.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from core.exceptions import error_body


class PingConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
        except ValueError:
            await self._send_json(error_body("malformed_frame", "Frames must be JSON objects."))
            return
        if not isinstance(message, dict) or message.get("type") != "ping":
            await self._send_json(error_body("unknown_type", "Only 'ping' is understood here."))
            return
        await self.channel_layer.send(
            self.channel_name, {"type": "pong.relay", "echo": message.get("echo")}
        )

    async def pong_relay(self, event: dict[str, Any]) -> None:
        await self._send_json(
            {"type": "pong", "echo": event.get("echo"), "user": self.scope["user"].get_username()}
        )

    async def _send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload))
