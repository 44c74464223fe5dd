"""The table chat: a line posted to the table stream, rate-limited per player."""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache

from core.errors import DomainError
from handhistory.store import Actor
from poker import table_events
from poker.commands import inputs
from poker.commands.runner import run_command
from poker.working_set import Ctx, table_event

CHAT_RATE = (5, 10)  # at most 5 messages per 10 seconds per player and table


class ChatRateLimited(DomainError):
    status = 429
    default_code = "chat_rate_limited"


def table_chat(
    *, table_id: int, player_id: int, text: object, key: str, actor: Actor
) -> dict[str, Any]:
    """Posts a chat line to the table stream (plain text; clients escape it)."""
    clean = inputs.chat_line(text)
    limit, window = CHAT_RATE

    def body(ctx: Ctx) -> dict[str, Any]:
        # Counted here, after the envelope found no stored result for this key, so a
        # retried line gets its original answer instead of eating the allowance.
        bucket = f"chat:{table_id}:{player_id}:{int(time.time() // window)}"
        cache.add(bucket, 0, timeout=window * 2)
        if cache.incr(bucket) > limit:
            raise ChatRateLimited(
                f"At most {limit} chat lines per {window} seconds.", retry_after_s=window
            )
        seat = ctx.seat_of_player(player_id)
        name = (seat.player if seat else get_user_model().objects.get(pk=player_id)).get_username()
        table_event(
            ctx,
            table_events.ChatPosted(
                seat=seat.number if seat else None,
                **table_events.person(player_id, name),
                text=clean,
            ),
        )
        return {"posted": True}

    return run_command(
        table_id=table_id,
        player_id=player_id,
        key=key,
        command="chat",
        request={"text": text},
        actor=actor,
        body=body,
    )
