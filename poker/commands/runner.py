"""The command runner: the envelope every table command runs in.

A command is a ``body`` (what it does to the table's working set, :class:`Ctx`) run by
:func:`run_command`, which owns everything around it: idempotency by the client's key
(the outcome is stored as a ``TableCommand`` in the same transaction as its effects, and
the same key again returns it), the table's lock, the version bump, the commit and the
broadcast after it. The rows move in ``poker.storage`` (this process's copies of them:
``poker.table_io``); the rules are the bodies' (``poker.commands.*``, ``poker.dealer``).

Two locking strategies run a body:

- **Locked** (every command): one durable transaction that starts by taking the table's
  row lock (and looking up the key in the same statement), so two commands for one
  table never interleave while different tables run in parallel.
- **Warm** (opt-in, ``unlocked=True``: the players' actions, the hot path): the body runs
  on this process's working set of the table, taken out of the cache without the lock.
  Its contract: (1) before anything the body does needs the database -- the ledger, a
  new hand, any ORM query, caught by a database hook -- it takes the lock and proves the
  row still at the copy's version (``Ctx.lock``); (2) otherwise its write commits only if
  the table is still at that version; (3) a copy found stale in either way (or by a
  duplicate event sequence number) is *overtaken*, and only then does the command run
  again, under the lock; (4) a refusal is decided once: the body's refusal is proven
  current by the same lock and stands -- it never runs the body again; (5) "nothing to
  do" is answered only from the locked table, since it writes nothing a stale copy could
  be caught by.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from typing import Any

from django.db import IntegrityError, OperationalError, connection, transaction

from core.broadcast import broadcast_table
from core.errors import Conflict, DomainError, NotFound
from core.idempotency import same_request
from handhistory.store import Actor
from poker import table_events, table_io
from poker.commands import inputs
from poker.dealer import deal_if_due
from poker.engine.errors import EngineError
from poker.models import TableCommand
from poker.published import Published, publish
from poker.selectors import public_view
from poker.storage import Record, table_store
from poker.working_set import Ctx, Overtaken


class TableError(DomainError):
    status = 422
    default_code = "table_error"


class StaleVersion(Conflict):
    default_code = "stale_version"


def request_hash(command: str, request: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps([command, request], sort_keys=True).encode()).hexdigest()


def run_command(
    *,
    table_id: int,
    player_id: int | None,
    key: str | None,
    command: str,
    request: dict[str, Any],
    actor: Actor,
    body: Callable[[Ctx], dict[str, Any] | None],
    unlocked: bool = False,
) -> dict[str, Any]:
    """The envelope of every table command (see the module docstring). A body returning
    None did nothing (e.g. a stale timeout): no version bump, no broadcast, no record.

    ``unlocked`` opts into the warm strategy when this process holds the table's working
    set: the locked path runs the command only when that copy was overtaken.
    """
    inputs.client_key(player_id=player_id, key=key)
    digest = request_hash(command, request)
    attempt = partial(
        _execute,
        table_id=table_id,
        player_id=player_id,
        key=key,
        command=command,
        digest=digest,
        actor=actor,
        body=body,
    )
    if unlocked and table_store().write_is_one_statement:
        working = table_io.take_unlocked(table_id)
        if working is not None:
            try:
                return attempt(working=working)
            except (Overtaken, IntegrityError):
                pass  # the copy was stale: the command runs again, under the lock
            except OperationalError as error:
                if not _deadlocked(error):
                    raise  # a deadlock rolled the try back whole: it runs again, locked
            except (DomainError, EngineError) as refusal:
                # Refused on a copy proven current: decided. The warm path never looked
                # the key up, so a key already used answers as it would under the lock.
                return _stored_outcome(
                    player_id=player_id, key=key, table_id=table_id, digest=digest, failure=refusal
                )
    try:
        return _locked(attempt)
    except (IntegrityError, DomainError, EngineError) as failure:
        # The key was looked up by the statement that waited for the lock, so a duplicate
        # that committed meanwhile was not seen: this one then failed on the key's unique
        # index or on the rules (already seated...). The command stored under the key is
        # the answer (the failure was only a symptom of losing the race).
        return _stored_outcome(
            player_id=player_id, key=key, table_id=table_id, digest=digest, failure=failure
        )


#: Tries of a command under the lock when PostgreSQL breaks a deadlock by aborting it.
DEADLOCK_TRIES = 3


def _deadlocked(error: OperationalError) -> bool:
    """Whether the database aborted this transaction to break a deadlock (SQLSTATE 40P01).

    One command makes several ledger postings in one transaction (a hand's settlement
    with the house's rake account, then cash-outs to wallets); each posting locks its
    accounts in id order, but two tables sharing a wallet and the house account can still
    take them in opposite orders across postings. The loser rolled back whole (and the
    table's working set is only cached again by a committed command), so it may run again.
    """
    return getattr(error.__cause__, "sqlstate", None) == "40P01"


def _locked(attempt: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """``attempt`` under the table lock, again when a deadlock aborted it."""
    for tries in range(1, DEADLOCK_TRIES + 1):
        try:
            return attempt(working=None)
        except OperationalError as error:
            if not _deadlocked(error) or tries == DEADLOCK_TRIES:
                raise
    raise AssertionError("unreachable")


def _stored_outcome(
    *, player_id: int | None, key: str | None, table_id: int, digest: str, failure: Exception
) -> dict[str, Any]:
    """The answer of the command stored under the client's key: its outcome if it is this
    command, else the 409 that the same key sent for another command gets; ``failure``
    when none is stored."""
    stored = (
        TableCommand.objects.filter(player_id=player_id, key=key).first()
        if player_id is not None and key
        else None
    )
    if stored is None:
        raise failure
    same_request(stored.request_hash == digest and stored.table_id == table_id, key=key)
    return {**stored.result, "replayed": True}


def _execute(
    *,
    table_id: int,
    player_id: int | None,
    key: str | None,
    command: str,
    digest: str,
    actor: Actor,
    body: Callable[[Ctx], dict[str, Any] | None],
    working: table_io.Working | None,
) -> dict[str, Any]:
    """One try of a command: under the table lock from the start (``working`` None), or
    on ``working`` taken without it (see ``run_command``)."""
    with ExitStack() as scope:
        if working is None:
            scope.enter_context(transaction.atomic(durable=True))
            locked, done = table_store().lock(table_id, player_id, key)
            if locked is None:
                raise NotFound(f"No table {table_id}.", code="table_not_found", table=table_id)
            if done is not None:
                same_request(done.request_hash == digest and done.table_id == locked.pk, key=key)
                return {**done.result, "replayed": True}
            ctx = Ctx.of(actor, table_io.take(locked))
        else:
            ctx = Ctx.of(actor, working, unlocked=scope)
            scope.enter_context(connection.execute_wrapper(ctx.lock_first))
        table = ctx.table
        try:
            outcome = body(ctx)
            if outcome is not None:
                # Any command that did something deals a hand that is due (the pause
                # after the last one is over).
                deal_if_due(ctx)
        except (DomainError, EngineError):
            # A refusal on a warm copy stands only if the copy is current: proven by the
            # lock at its version, else Overtaken (no-op under the lock already held).
            ctx.lock()
            raise
        after = ctx.working()
        if outcome is None:
            if ctx.unlocked is not None:  # "nothing to do" holds only for a current table
                raise Overtaken
            # Nothing changed, so nothing is written (events, hands and seats are
            # only ever written with a new version).
            assert not (ctx.pending or ctx.changed_hands or ctx.changed_seats)
            result = {"noop": True, "version": table.version}
        else:
            table.version += 1
            result = {**outcome, "version": table.version}
            update: dict[str, Any] = {
                "type": "update",
                # The update log's rows say their shape (poker.table_events); off the wire.
                "schema": table_events.VERSION,
                "version": table.version,
                "events": ctx.broadcasts,
                "public": public_view(
                    table=table, hand=ctx.hand, state=ctx.state, seats=list(ctx.seats().values())
                ),
            }
            record = (
                Record(player_id, key, command, digest, result)
                if player_id is not None and key
                else None
            )
            if not table_store().write(
                table,
                events=ctx.pending,
                hands=list(ctx.changed_hands.values()),
                seats=list(ctx.changed_seats.values()),
                record=record,
                update=update,
            ):
                raise Overtaken
            running = after.hand if after.state is not None else None
            basis = Published(
                version=table.version,
                public=update["public"],
                state=after.state,
                player_ids=tuple(after.hand.player_ids) if after.hand else (),
                hand_id=running.pk if running else None,
                head=after.heads.get(running.stream) if running else None,
            )
            # Readers of this process see the version before its broadcast arrives. (An
            # unlocked command's write committed by itself: these run at once.)
            transaction.on_commit(lambda: publish(table.pk, basis))
            broadcast_table(table.pk, update)
    table_io.keep(after)
    return result
