"""One simulated table: its bots send every command through the live table service.

A :class:`TableRunner` belongs to one thread, the table's only client, so the working set
its last command left in this process (``table_io.peek``) is current. Each ``step`` sends
at most one command: a lineup change (leave after folding, sit when a seat is free), a
rebuy or top-up (a short stack sits out after folding, tops up and sits in), or the
decision of the player to act.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any

from core.errors import DomainError
from fraud.simulation import bots
from fraud.simulation.room import Round
from handhistory.store import Actor
from poker import table_io
from poker.commands.play import table_act
from poker.commands.seating import table_leave, table_sit, table_sit_in, table_sit_out, table_top_up
from poker.engine.betting import legal_actions
from poker.engine.errors import EngineError
from poker.models import Seat, Table

log = logging.getLogger(__name__)

SMALL_BLIND, BIG_BLIND = 50, 100
BUY_IN = 100 * BIG_BLIND
MIN_BUY_IN = 20 * BIG_BLIND
#: A stack below this share of the player's buy-in sits out after folding, to top up.
SHORT = 0.4
#: Hands a leaving player who has not folded may go on playing before leaving mid-hand
#: (the table then checks or folds for them, as for anyone who leaves mid-hand).
LEAVE_GRACE = 3
#: Steps in a row without a command and without a hand before the session is skipped.
STALL_STEPS = 3


@dataclass(frozen=True)
class SimPlayer:
    index: int
    user_id: int
    style: bots.Style
    actor: Actor
    relations: dict[int, str]  # other player's index -> relation


class TableRunner:
    """Plays one table through its sessions until it has dealt ``quota`` hands."""

    def __init__(
        self,
        *,
        table_id: int,
        position: int,
        rounds: list[Round],
        quota: int,
        players: dict[int, SimPlayer],
        seed: int,
    ) -> None:
        self.table_id = table_id
        self.position = position
        self.rounds = rounds
        self.quota = quota
        self.players = players  # by user id
        self.by_index = {p.index: p for p in players.values()}
        self.rng = random.Random(f"{seed}-table-{position}")
        self.round = 0
        self.round_start = 0
        self.closing_since: int | None = None
        self.leaving_since: dict[int, int] = {}  # user id -> finished hands when they chose to
        self.stalled = 0
        self.commands = 0
        self.errors = 0
        self.hands = 0  # finished hands
        self.memory = bots.HandMemory(hand_id=0)
        self.done = False

    # --- reading the table --------------------------------------------------------------

    def _working(self) -> table_io.Working:
        working = table_io.peek(self.table_id)
        if working is None:  # no command of this process yet, or the last one failed
            working = table_io.take(Table.objects.get(pk=self.table_id))
        return working

    def _lineup(self, finished: int) -> set[int]:
        if finished >= self.quota:
            if self.closing_since is None:
                self.closing_since = finished
            return set()
        while (
            self.round + 1 < len(self.rounds)
            and finished - self.round_start >= self.rounds[self.round].hands
        ):
            self.round_start += self.rounds[self.round].hands
            self.round += 1
        return set(self.rounds[self.round].lineups[self.position])

    # --- one step -----------------------------------------------------------------------

    def step(self) -> bool:
        """Sends the table's next command; False once the table is done."""
        if self.done:
            return False
        w = self._working()
        finished = w.table.hands_played - (1 if w.table.current_hand_id else 0)
        self.hands = finished
        lineup = self._lineup(finished)
        if self._manage_seats(w, lineup, finished) or self._act(w):
            self.stalled = 0
            return True
        if not w.seats and self.closing_since is not None:
            self.done = True
            return False
        if w.hand is None:
            self.stalled += 1
            if self.stalled >= STALL_STEPS:  # nobody can play this session: skip it
                if self.round + 1 >= len(self.rounds):
                    self.quota = finished
                else:
                    self.round, self.round_start = self.round + 1, finished
                self.stalled = 0
        return True

    def _manage_seats(self, w: table_io.Working, lineup: set[int], finished: int) -> bool:
        state = (
            w.state if w.hand is not None and w.state is not None and not w.state.is_over else None
        )
        in_hand = (
            {pid: i for i, pid in enumerate(w.hand.player_ids)}
            if state is not None and w.hand
            else {}
        )
        seated = {s.player_id: s for s in w.seats.values()}
        for pid, seat in sorted(seated.items()):
            player = self.players[pid]
            index = in_hand.get(pid)
            busy = state is not None and index is not None and state.active[index]
            if seat.state == Seat.State.LEAVING:
                continue
            if player.index not in lineup:
                since = self.leaving_since.setdefault(pid, finished)
                if not busy or finished - since >= LEAVE_GRACE:
                    del self.leaving_since[pid]
                    return self._send(table_leave, player)
                continue
            self.leaving_since.pop(pid, None)
            stack = state.stacks[index] if state is not None and index is not None else seat.stack
            buy_in = player.style.buy_in_bb * BIG_BLIND
            if seat.state == Seat.State.ACTIVE and not busy and stack < SHORT * buy_in:
                return self._send(table_sit_out, player)
            if seat.state == Seat.State.SITTING_OUT and index is None:
                if seat.stack < buy_in:
                    return self._send(table_top_up, player, amount=buy_in - seat.stack)
                return self._send(table_sit_in, player)
        free = len(w.seats) < w.table.max_seats
        joining = sorted(
            self.by_index[i].user_id for i in lineup if self.by_index[i].user_id not in seated
        )
        if free and joining:
            sitting = self.players[joining[0]]
            return self._send(table_sit, sitting, buy_in=sitting.style.buy_in_bb * BIG_BLIND)
        return False

    def _act(self, w: table_io.Working) -> bool:
        hand, state = w.hand, w.state
        if hand is None or state is None or (legal := legal_actions(state)) is None:
            return False
        if self.memory.hand_id != hand.pk:
            self.memory = bots.HandMemory(hand_id=hand.pk)
        player = self.players[hand.player_ids[legal.actor]]
        relations = {
            i: rel
            for i, pid in enumerate(hand.player_ids)
            if (rel := player.relations.get(self.players[pid].index)) is not None
        }
        seat = bots.Seat(me=legal.actor, style=player.style, relations=relations)
        action, amount = bots.decide(state, seat, legal, self.memory, self.rng)
        self.memory.record(state.street, legal.actor, action)
        return self._send(table_act, player, action=action, amount=amount)

    def _send(self, command: Any, player: SimPlayer, **kw: Any) -> bool:
        self.commands += 1
        key = f"sim-{self.table_id}-{self.commands}"
        try:
            command(
                table_id=self.table_id, player_id=player.user_id, key=key, actor=player.actor, **kw
            )
        except (DomainError, EngineError) as error:
            self.errors += 1
            if self.errors <= 5:
                log.warning(
                    "table %s: %s by %s refused: %s",
                    self.table_id,
                    command.__name__,
                    player.user_id,
                    error,
                )
        return True
