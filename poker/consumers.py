"""The live table WebSocket (docs/protocol.md): a thin edge over the table services.

One connection watches one table. It joins the table's channel-layer group, whose
messages are the PUBLIC ``update`` payloads the services broadcast after commit, and
forwards them unchanged. What only this connection's user may see (hole cards, legal
actions) is never put in a group message: it is read per connection from
``table_view`` and sent as a ``private`` frame right after the update that changed it.

Ordering: each connection keeps the last version it sent. Older or duplicate updates are
dropped; a gap is filled from the stored updates (``updates_since``) or, when too far
behind, by a fresh snapshot, so every connection sees strictly increasing, gap-free
versions, and a ``private`` frame never runs ahead of the public stream.

Client frames are validated completely (``poker.ws_protocol``) before any service is
called; service calls are the same durable, idempotent commands the REST API uses. An
update is read into typed table events, and what it changes for this connection's user
decided, in ``poker.ws_updates``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from core.broadcast import table_group
from core.errors import DomainError, NotFound
from core.exceptions import map_exception
from core.ws_auth import _user_for_token
from handhistory.store import Actor
from poker import presence, selectors
from poker.commands import chat, play, seating
from poker.ws_protocol import MAX_DEVICE_ID_LENGTH, Frame, ProtocolError, error_frame, parse_frame
from poker.ws_updates import Due, Watcher, received

logger = logging.getLogger(__name__)

#: Frames a connection may send: a burst of this many, refilled over this many seconds.
FRAME_RATE = (40, 5.0)

#: Close codes (4000-4999 are the application's).
CLOSE_UNAUTHORIZED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_BAD_REQUEST = 4400
CLOSE_INTERNAL = 1011


class NotAuthenticated(DomainError):
    """A spectator (anonymous connection) tried to act or chat."""

    status = 401
    default_code = "not_authenticated"


class AlreadyAuthenticated(DomainError):
    status = 409
    default_code = "already_authenticated"


# --- database calls (sync, run in Channels' DB thread) ----------------------------------------


def _consistent_view(table_id: int, viewer_id: int | None) -> dict[str, Any]:
    """``table_view`` (it reads one snapshot itself)."""
    return selectors.table_view(table_id=table_id, viewer_id=viewer_id)


def _consistent_updates_since(*, table_id: int, from_version: int) -> list[dict[str, Any]] | None:
    """``updates_since`` read from one snapshot."""
    with selectors.one_snapshot():
        return selectors.updates_since(table_id=table_id, from_version=from_version)


_view = database_sync_to_async(_consistent_view)
_updates_since = database_sync_to_async(_consistent_updates_since)
_act = database_sync_to_async(play.table_act)
_sit_out = database_sync_to_async(seating.table_sit_out)
_sit_in = database_sync_to_async(seating.table_sit_in)
_chat = database_sync_to_async(chat.table_chat)
_presence_open = database_sync_to_async(presence.presence_open)
_presence_close = database_sync_to_async(presence.presence_close)


class TableConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels is untyped: the base class is Any
    """``ws/tables/<table_id>/``: snapshot on connect, public updates, private frames,
    and the client commands of the protocol."""

    table_id: int
    user_id: int | None
    version: int

    # --- lifecycle ---------------------------------------------------------------------------

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = table_group(self.table_id)
        self.joined = self.present = False
        self.user_id = None
        self.version = -1
        # What this connection last saw publicly, to tell when a private frame is due.
        self.watch = Watcher(None)
        # Accept first: a close code only reaches a client on an accepted socket.
        await self.accept()
        if self.table_id >= 2**63:  # no such row can exist (and the query would fail)
            await self.close(code=CLOSE_NOT_FOUND)
            return
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.user_id = int(user.pk)
            self.watch = Watcher(self.user_id)
        elif self.scope.get("auth_method") == "token":  # a token was given and is bad
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        device = self._device_id()
        if device is None:
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        self.actor = self._actor(device)
        # Join before reading the snapshot: an update committed in between is then queued
        # for us and dropped as old (or forwarded) by its version; nothing falls in a hole.
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = True
        try:
            await self._send_snapshot()
        except NotFound:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.joined = False
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._present()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # However the connection ended (a consumer that failed gets no disconnect()),
            # its presence ends with it.
            await self._absent()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.joined = False
        await self._absent()

    async def _absent(self) -> None:
        if not getattr(self, "present", False):
            return
        self.present = False
        presence.refresher().discard(self.channel_name)
        try:
            await _presence_close(channel=self.channel_name)
        except Exception:
            # Not closed: the row goes stale instead, no longer refreshed.
            logger.exception("presence close failed", extra={"table": self.table_id})

    async def _present(self) -> None:
        """A signed-in user's socket counts for their presence at the table (the shot
        clock's "disconnected", ``poker.presence``) until it closes."""
        if self.user_id is None:
            return
        await _presence_open(
            table_id=self.table_id, player_id=self.user_id, channel=self.channel_name
        )
        self.present = True
        presence.refresher().add(self.channel_name)

    def _device_id(self) -> str | None:
        """The client's device id (``device`` query parameter or ``X-Device-Id`` header),
        "" when absent, None when unusable."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        value = query["device"][0] if query.get("device") else ""
        if not value:
            for name, raw in self.scope.get("headers", []):
                if name == b"x-device-id":
                    value = raw.decode("latin-1").strip()
        return value if len(value) <= MAX_DEVICE_ID_LENGTH else None

    def _actor(self, device: str) -> Actor:
        address: str | None = None
        client = self.scope.get("client")
        if client:
            try:
                address = str(ipaddress.ip_address(client[0]))
            except ValueError:
                address = None
        return Actor(kind="player", user_id=self.user_id, client_ip=address, device_id=device)

    # --- server -> client --------------------------------------------------------------------

    async def _send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))

    async def _send_snapshot(self, view: dict[str, Any] | None = None) -> None:
        if view is None:
            view = await _view(self.table_id, self.user_id)
        self.watch.absorb(view)
        self.watch.you = view.get("you")
        self.version = int(view["version"])
        await self._send_json({"type": "snapshot", "version": self.version, "view": view})

    async def _deliver(self, updates: list[dict[str, Any]]) -> None:
        """Sends consecutive new updates, then one private frame if any of them touched
        this user."""
        due = Due.NOTHING
        for update in updates:
            version = update.get("version")
            if not isinstance(version, int) or version <= self.version:
                continue
            if version != self.version + 1:  # cannot happen with gap-free input; be safe
                await self._send_snapshot()
                return
            read = received(self.table_id, update)
            await self.send(text_data=read.wire)
            self.version = version
            due = max(due, self.watch.due(read.update))
        you = self.watch.you
        if due == Due.TURN_ENDED and you is not None:
            # Same hand, same seat and state, same cards: only the legal actions went.
            self.watch.you = you = {**you, "legal_actions": None}
            await self._send_json({"type": "private", "version": self.version, "you": you})
        elif due != Due.NOTHING:
            await self._send_private()

    async def _send_private(self) -> None:
        """The ``you`` part of a fresh view; public updates up to the view's version go
        out first so a private frame never runs ahead of the public stream."""
        # At the version this connection has seen, the process that committed it knows
        # the view without the database; elsewhere it is read.
        view = selectors.view_at(
            table_id=self.table_id, viewer_id=self.user_id, version=self.version
        ) or await _view(self.table_id, self.user_id)
        version = int(view["version"])
        if version > self.version:
            missed = await _updates_since(table_id=self.table_id, from_version=self.version)
            if missed is None:
                await self._send_snapshot(view)
                return
            for update in missed:
                if self.version < update["version"] <= version:
                    if update["version"] != self.version + 1:
                        await self._send_snapshot(view)
                        return
                    read = received(self.table_id, update)
                    await self.send(text_data=read.wire)
                    self.version = update["version"]
                    self.watch.absorb(read.update.public)
            if self.version != version:
                await self._send_snapshot(view)
                return
        self.watch.absorb(view)
        self.watch.you = view.get("you")
        await self._send_json({"type": "private", "version": version, "you": self.watch.you})

    # --- group messages ----------------------------------------------------------------------

    async def update(self, event: dict[str, Any]) -> None:
        """A committed change of the table (group message of type ``update``)."""
        version = event.get("version")
        if not isinstance(version, int) or version <= self.version:
            return  # a duplicate, or already covered by a snapshot or a gap fill
        try:
            if version == self.version + 1:
                await self._deliver([event])
                return
            missed = await _updates_since(table_id=self.table_id, from_version=self.version)
            if missed is None:
                await self._send_snapshot()
            else:
                await self._deliver(missed)
        except NotFound:
            await self.close(code=CLOSE_NOT_FOUND)
        except Exception:
            # The stream can no longer be kept gap-free: close so the client reconnects
            # (and gets a fresh snapshot) rather than silently missing a version.
            logger.exception("table update delivery failed", extra={"table": self.table_id})
            await self.close(code=CLOSE_INTERNAL)

    # --- client -> server --------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame: Frame | ProtocolError
        try:
            frame = parse_frame(text_data, bytes_data)
        except ProtocolError as error:
            frame = error
        wait = self._frame_wait()
        if wait:
            # Refused, doing nothing; the key says which frame, so a client can send it
            # again after ``retry_after_s``.
            await self._send_json(
                error_frame(
                    "rate_limited",
                    f"At most {FRAME_RATE[0]} frames per {FRAME_RATE[1]:g} s; slow down.",
                    {"retry_after_s": wait},
                    key=frame.key,
                )
            )
            return
        if isinstance(frame, ProtocolError):
            await self._send_json(frame.frame())
            return
        try:
            await getattr(self, f"_on_{frame.type}")(frame)
        except Exception as exc:
            mapped = map_exception(exc)
            if mapped is None:
                logger.exception(
                    "websocket command failed", extra={"table": self.table_id, "frame": frame.type}
                )
                body = error_frame("internal_error", "Internal server error.")
            else:
                body = {"type": "error", **mapped[1]}
            if frame.key is not None:
                body["key"] = frame.key
            await self._send_json(body)

    def _frame_wait(self) -> float:
        """A token bucket per connection: a flood of frames (resyncs asking for snapshots,
        pings) cannot monopolise the process. 0 when this frame may run, else the seconds
        until it could (refused frames do nothing)."""
        capacity, per_seconds = FRAME_RATE
        now = time.monotonic()
        tokens, last = getattr(self, "_bucket", (float(capacity), now))
        tokens = min(float(capacity), tokens + (now - last) * capacity / per_seconds)
        allowed = tokens >= 1.0
        self._bucket = (tokens - 1.0 if allowed else tokens, now)
        return 0.0 if allowed else math.ceil((1.0 - tokens) * per_seconds / capacity * 1000) / 1000

    def _player(self) -> int:
        if self.user_id is None:
            raise NotAuthenticated("Spectators cannot act or chat; authenticate first.")
        return self.user_id

    async def _ack(self, frame: Frame, result: dict[str, Any]) -> None:
        await self._send_json({"type": "ack", "key": frame.key, "result": result})

    async def _on_act(self, frame: Frame) -> None:
        player = self._player()
        assert frame.key is not None
        result = await _act(
            table_id=self.table_id,
            player_id=player,
            action=frame.action,
            amount=frame.amount,
            version=frame.version,
            key=frame.key,
            actor=self.actor,
        )
        await self._ack(frame, result)

    async def _on_sit_out(self, frame: Frame) -> None:
        player = self._player()
        assert frame.key is not None
        result = await _sit_out(
            table_id=self.table_id, player_id=player, key=frame.key, actor=self.actor
        )
        await self._ack(frame, result)

    async def _on_sit_in(self, frame: Frame) -> None:
        player = self._player()
        assert frame.key is not None
        result = await _sit_in(
            table_id=self.table_id, player_id=player, key=frame.key, actor=self.actor
        )
        await self._ack(frame, result)

    async def _on_chat(self, frame: Frame) -> None:
        player = self._player()
        assert frame.key is not None
        result = await _chat(
            table_id=self.table_id,
            player_id=player,
            text=frame.text,
            key=frame.key,
            actor=self.actor,
        )
        await self._ack(frame, result)

    async def _on_resync(self, frame: Frame) -> None:
        """The updates after ``from_version`` in order (already-sent ones again, as asked),
        or a snapshot when they are not all kept; an ``ack`` follows when a key was given."""
        assert frame.from_version is not None
        missed = await _updates_since(table_id=self.table_id, from_version=frame.from_version)
        if missed is None or frame.from_version > self.version:
            await self._send_snapshot()
            sent: dict[str, Any] = {"snapshot": True, "version": self.version}
        else:
            old = [u for u in missed if u["version"] <= self.version]
            for update in old:
                await self.send(text_data=received(self.table_id, update).wire)
            await self._deliver([u for u in missed if u["version"] > self.version])
            sent = {"snapshot": False, "updates": len(missed), "version": self.version}
        if frame.key is not None:
            await self._ack(frame, sent)

    async def _on_ping(self, frame: Frame) -> None:
        pong: dict[str, Any] = {"type": "pong"}
        if frame.key is not None:
            pong["key"] = frame.key
        await self._send_json(pong)

    async def _on_auth(self, frame: Frame) -> None:
        """Authenticates a spectator; the user's private view follows as a ``private``."""
        if self.user_id is not None:
            raise AlreadyAuthenticated("This connection is already authenticated.")
        assert frame.token is not None
        user = await _user_for_token(frame.token)
        if user is None:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        self.scope["user"] = user
        self.user_id = self.watch.user_id = int(user.pk)
        self.actor = Actor(
            kind="player",
            user_id=self.user_id,
            client_ip=self.actor.client_ip,
            device_id=self.actor.device_id,
        )
        await self._send_private()
        await self._present()
        if frame.key is not None:
            await self._ack(
                frame,
                {"authenticated": True, "user_id": self.user_id, "username": user.get_username()},
            )
