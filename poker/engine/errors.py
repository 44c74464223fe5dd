"""Typed engine errors with stable machine codes.

Every refusal carries ``code`` (stable snake_case, mapped to HTTP statuses and WebSocket
error frames by the edges), ``message`` (human text with context) and ``extra`` (a dict
of plain JSON values, e.g. the legal minimum). Edges never parse ``message``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

#: The placeholders a message may hold: the players it names, by role, and the hand.
_TOKEN = re.compile(r"\{(player|actor|hand)\}")


class EngineError(Exception):
    """Base of every error the engine raises on purpose.

    The engine knows players only by their index in the hand, which means nothing to
    the people at a table. So a message names players by role -- ``{player}`` (who
    tried), ``{actor}`` (whose turn it is) -- with ``players`` giving each role's index,
    and may say where with ``{hand}``. ``message`` renders them in the engine's own words
    ("player 1"); an edge that knows seats and names calls :meth:`render` instead (the
    table service: "seat 3 (alice)", "hand 812, "), and never parses ``message``.

    >>> err = EngineError(code="example", message="it broke", extra={"seat": 3})
    >>> (err.code, str(err), err.extra)
    ('example', 'it broke', {'seat': 3})
    >>> err = EngineError(code="not_your_turn", message="it is {actor}'s turn ({hand}flop)",
    ...                   players={"actor": 1})
    >>> err.message
    "it is player 1's turn (flop)"
    >>> err.render(lambda i: f"seat {i + 3}", hand="hand 9, ")
    "it is seat 4's turn (hand 9, flop)"
    """

    def __init__(
        self,
        *,
        code: str,
        message: str,
        extra: dict[str, Any] | None = None,
        players: Mapping[str, int] | None = None,
    ) -> None:
        self.code = code
        self.template = message
        #: The engine index of each player the message names, by role (``player``,
        #: ``actor``).
        self.players: dict[str, int] = dict(players or {})
        self.message = self.render(lambda index: f"player {index}")
        super().__init__(self.message)
        self.extra: dict[str, Any] = dict(extra or {})

    def render(self, name: Callable[[int], str], hand: str = "") -> str:
        """The message with each named player as ``name(index)`` and ``{hand}`` as ``hand``."""

        def fill(match: re.Match[str]) -> str:
            role = match[1]
            if role == "hand":
                return hand
            index = self.players.get(role)
            return match[0] if index is None else name(index)

        return _TOKEN.sub(fill, self.template)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class IllegalAction(EngineError):
    """A command that the rules do not allow in the current state (nothing changed)."""


class InvalidConfig(EngineError):
    """A hand configuration that cannot be played (bad stakes, stacks or variant)."""


class InvalidEvent(EngineError):
    """An event that cannot be applied to the state: a corrupt or foreign event stream."""
