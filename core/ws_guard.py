"""WebSockets while the channel layer (Redis) is down: a typed close, never an HTTP 500.

Every socket lives on the channel layer (its own channel, its table's group). When the
layer cannot be reached:

* a new connection fails before its consumer can accept it (``new_channel``), which the
  ASGI server would answer with HTTP 500. This guard completes the handshake instead and
  sends an ``error`` frame ``service_unavailable`` and then close code 4503, the same as
  any other typed refusal (docs/protocol.md);
* an open connection would go silently deaf: pub/sub delivers nothing and nothing fails.
  While sockets are open, one watchdog per event loop publishes a probe on the layer every
  second; when that fails, every open socket of the process gets the same frame and close,
  so clients reconnect (with back-off) and resynchronise once the layer is back.

REST keeps working meanwhile: broadcasts after commit are logged, not raised
(``core.broadcast``). Nothing here keeps state across outages: when Redis returns, new
connections simply succeed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from channels.layers import get_channel_layer

from core.exceptions import error_body

logger = logging.getLogger(__name__)

CLOSE_SERVICE_UNAVAILABLE = 4503
PROBE_INTERVAL_S = 1.0
PROBE_TIMEOUT_S = 3.0
_PROBE_GROUP = "layer-probe"


def _layer_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OSError, TimeoutError]
    try:
        from redis.exceptions import RedisError
    except ImportError:  # pragma: no cover - redis ships with the project
        pass
    else:
        errors.append(RedisError)
    return tuple(errors)


#: What a channel layer raises when its backend cannot be reached.
LAYER_ERRORS = _layer_errors()


def unavailable_frame() -> dict[str, Any]:
    return {
        "type": "error",
        **error_body(
            "service_unavailable",
            "Live table updates are unavailable right now; reconnect in a few seconds "
            "(REST requests still work).",
            {"retry_after_s": 5},
        ),
    }


class _Watchdog:
    """Probes the layer while sockets of this event loop are open; on failure, tells them."""

    def __init__(self) -> None:
        self.sockets: set[Callable[[], Awaitable[None]]] = set()
        self.task: asyncio.Task[None] | None = None
        self.sleeping = False

    def add(self, on_lost: Callable[[], Awaitable[None]]) -> None:
        self.sockets.add(on_lost)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def discard(self, on_lost: Callable[[], Awaitable[None]]) -> None:
        self.sockets.discard(on_lost)
        if not self.sockets and self.sleeping and self.task is not None:
            # Nobody left to watch: stop now rather than at the next probe (a closing
            # event loop would otherwise find the task pending).
            self.task.cancel()
            self.sleeping = False

    async def _run(self) -> None:
        layer = get_channel_layer()
        while self.sockets:
            self.sleeping = True
            try:
                await asyncio.sleep(PROBE_INTERVAL_S)
            finally:
                self.sleeping = False
            if not self.sockets:
                return
            try:
                await asyncio.wait_for(
                    layer.group_send(_PROBE_GROUP, {"type": "layer.probe"}), PROBE_TIMEOUT_S
                )
            except LAYER_ERRORS as exc:
                lost, self.sockets = list(self.sockets), set()
                logger.warning(
                    "channel layer unavailable: closing open websockets",
                    extra={"sockets": len(lost), "error": type(exc).__name__},
                )
                await asyncio.gather(*(on_lost() for on_lost in lost), return_exceptions=True)


_WATCHDOGS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Watchdog] = (
    weakref.WeakKeyDictionary()
)


def _watchdog() -> _Watchdog:
    loop = asyncio.get_running_loop()
    watchdog = _WATCHDOGS.get(loop)
    if watchdog is None:
        watchdog = _WATCHDOGS[loop] = _Watchdog()
    return watchdog


class _Socket:
    """One connection's ASGI receive/send, tracking the handshake so the guard can finish
    it with a typed close at any point."""

    def __init__(self, receive: Any, send: Any, watchdog: _Watchdog) -> None:
        self._receive, self._send, self._watchdog = receive, send, watchdog
        self.connected = self.accepted = self.closed = self.lost = False

    async def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = await self._receive()
        if message["type"] == "websocket.connect":
            self.connected = True
        elif message["type"] == "websocket.disconnect":
            self.closed = True
            self._watchdog.discard(self.lose)
        return message

    async def send(self, message: dict[str, Any]) -> None:
        if self.lost:
            return  # already closed as unavailable: the consumer's last words go nowhere
        await self._send(message)
        if message["type"] == "websocket.accept":
            self.accepted = True
            self._watchdog.add(self.lose)
        elif message["type"] == "websocket.close":
            self.closed = True
            self._watchdog.discard(self.lose)

    async def lose(self) -> None:
        """Error frame, then close 4503 (accepting first if the consumer had not)."""
        if self.lost or self.closed:
            return
        self.lost = True
        self._watchdog.discard(self.lose)
        if not self.connected:
            message = await self._receive()
            if message["type"] != "websocket.connect":
                return
            self.connected = True
        if not self.accepted:
            await self._send({"type": "websocket.accept"})
        await self._send({"type": "websocket.send", "text": json.dumps(unavailable_frame())})
        await self._send({"type": "websocket.close", "code": CLOSE_SERVICE_UNAVAILABLE})


class ChannelLayerGuard:
    """ASGI middleware for the WebSocket stack (config/asgi.py)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope.get("type") != "websocket" or get_channel_layer() is None:
            return await self.inner(scope, receive, send)
        socket = _Socket(receive, send, _watchdog())
        try:
            return await self.inner(scope, socket.receive, socket.send)
        except LAYER_ERRORS as exc:
            if not socket.lost:
                logger.warning(
                    "websocket closed: channel layer unavailable",
                    extra={"path": scope.get("path"), "error": type(exc).__name__},
                )
                await socket.lose()
        except Exception:
            if not socket.lost:  # once closed as unavailable, what fails after is moot
                raise
        finally:
            socket._watchdog.discard(socket.lose)
