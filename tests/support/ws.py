"""Live-table WebSocket clients for tests: a client that records every frame, a table
with funded players seated, and the counts of what a command could have written."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.support.poker import actor_for, fund, key


class WS:
    """One WebSocket client that records every frame it receives."""

    def __init__(self, table_id: int, token: str | None = None, *, query: str = "",
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:  # fmt: skip
        params = "&".join(p for p in (f"token={token}" if token else "", query) if p)
        path = f"/ws/tables/{table_id}/" + (f"?{params}" if params else "")
        self.comm = WebsocketCommunicator(application, path, headers=headers or [])
        self.frames: list[dict[str, Any]] = []

    async def connect(self) -> dict[str, Any]:
        """Connects and returns the first frame (the snapshot)."""
        connected, _ = await self.comm.connect()
        assert connected
        return await self.recv()

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        frame = json.loads(await self.comm.receive_from(timeout=timeout))
        self.frames.append(frame)
        return frame

    async def send(self, **frame: Any) -> None:
        await self.comm.send_to(text_data=json.dumps(frame))

    async def send_raw(self, text: str) -> None:
        await self.comm.send_to(text_data=text)

    async def until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:  # fmt: skip
        """Receives until a frame matches ``predicate``; returns it."""
        while True:
            frame = await self.recv(timeout)
            if predicate(frame):
                return frame

    async def reply(self, key_: str, timeout: float = 10) -> dict[str, Any]:
        """The ack or error answering the frame with ``key_``."""
        return await self.until(
            lambda f: f["type"] in ("ack", "error") and f.get("key") == key_, timeout
        )

    async def drain(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Receives until nothing arrives for ``quiet`` seconds."""
        got = []
        while not await self.comm.receive_nothing(timeout=quiet):
            got.append(await self.recv())
        return got

    async def close(self) -> None:
        await self.comm.disconnect()


def _make_player(amount: int = 1_000_000) -> tuple[Any, str]:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(username=f"ws-{uuid.uuid4().hex[:10]}")
    fund(user, amount)
    return user, Token.objects.create(user=user).key


@sync_to_async
def seated_table(n: int = 3, *, buy_in: int = 10_000, **overrides: Any) -> tuple[int, list[tuple[Any, str]]]:  # fmt: skip
    """A table with ``n`` funded players seated (so a hand runs when n >= 2)."""
    from poker.commands.seating import table_create, table_sit

    params: dict[str, Any] = dict(
        name="WS", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
        max_buy_in=1_000_000, max_seats=6,
    )  # fmt: skip
    params.update(overrides)
    table = table_create(**params)
    players = [_make_player() for _ in range(n)]
    for user, _ in players:
        table_sit(table_id=table.pk, player_id=user.pk, buy_in=buy_in, key=key(),
                  actor=actor_for(user))  # fmt: skip
    return table.pk, players


@sync_to_async
def counts() -> tuple[int, int, int]:
    """(events, transfers, table commands): anything a command could have written."""
    from handhistory.models import Event
    from ledger.models import Transfer
    from poker.models import TableCommand

    return Event.objects.count(), Transfer.objects.count(), TableCommand.objects.count()
