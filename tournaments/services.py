"""The tournament services: create (staff), register, unregister, cancel (staff).

Money: each tournament has its own ledger accounts (owner ``tournament:<id>``): the prize
pool and the bounties. Registering moves, from the player's cash, ``buy_in - bounty`` to
the pool, ``bounty`` to the bounty account and ``fee`` to the house's tournament fees:
linked transfers, all or none, whose ids are derived from (tournament, player, entry
number, leg), so a retry never pays twice. A refund (unregistering, a cancellation before
the start) pays each leg back from where it went, under ids derived the same way.

Every service runs in its own durable transaction holding the tournament's row lock
(``SELECT ... FOR UPDATE``): registrations of one tournament are serialised, so the field
never exceeds ``max_players`` and a player holds at most one live entry. The ledger
writes, the entry rows and the tournament stream's events commit together or not at all.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import InvalidRequest
from handhistory.store import SYSTEM, Actor, events_append
from ledger.errors import InsufficientFunds
from ledger.models import Account, AccountKind
from ledger.posting import TransferRequest
from ledger.services import ledger_account_open, ledger_post_transfers_in_transaction
from staff.log import staff_log_record
from staff.roles import staff_require
from tournaments.errors import (
    AlreadyRegistered,
    NotRegistered,
    RegistrationClosed,
    TournamentFull,
    TournamentNotFound,
    TournamentStarted,
)
from tournaments.events import (
    PlayerRegistered,
    PlayerUnregistered,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
)
from tournaments.models import Entry, Tournament
from wallet.amounts import money_format
from wallet.restrictions import restriction_check
from wallet.services import currency_validate, derived_id, player_account

CREATE_PERMISSION = "tournaments.add_tournament"
CANCEL_PERMISSION = "tournaments.change_tournament"


# --- accounts ------------------------------------------------------------------------


def tournament_accounts(tournament: Tournament) -> dict[str, Account]:
    """The tournament's pool and bounty accounts and the house's fee account."""
    return {
        "pool": ledger_account_open(
            kind=AccountKind.TOURNAMENT_POOL,
            owner_ref=tournament.owner_ref,
            currency=tournament.currency,
        ),
        "bounty": ledger_account_open(
            kind=AccountKind.TOURNAMENT_BOUNTY,
            owner_ref=tournament.owner_ref,
            currency=tournament.currency,
        ),
        "fee": ledger_account_open(
            kind=AccountKind.HOUSE_TOURNAMENT_FEES, owner_ref="house", currency=tournament.currency
        ),
    }


def _entry_pay(tournament: Tournament, entry: Entry, *, refund: bool) -> None:
    """Posts the entry's payment or refund, in the caller's transaction (a freeroll's
    entry moves nothing)."""
    legs = _entry_legs(tournament, entry, refund=refund)
    if legs:
        ledger_post_transfers_in_transaction(transfers=legs)


def _entry_transfer_id(
    tournament: Tournament, entry: Entry, leg: str, *, refund: bool
) -> uuid.UUID:
    """Derived from (tournament, player, entry number, leg, pay or refund): a retry never
    pays twice."""
    parts = ("tournament", tournament.pk, "entry", entry.player_id, entry.number, leg)
    return derived_id(*parts, "refund" if refund else "pay")


def _entry_legs(tournament: Tournament, entry: Entry, *, refund: bool) -> list[TransferRequest]:
    """The entry's payment (or its refund): one transfer per non-zero part."""
    accounts = tournament_accounts(tournament)
    player = player_account(user_id=entry.player_id, currency=tournament.currency)
    parts = (
        ("pool", entry.buy_in - entry.bounty, "tournament_buy_in"),
        ("bounty", entry.bounty, "tournament_bounty"),
        ("fee", entry.fee, "tournament_fee"),
    )
    legs = []
    for leg, amount, code in parts:
        if amount <= 0:
            continue
        debit, credit = (accounts[leg], player) if refund else (player, accounts[leg])
        legs.append(
            TransferRequest(
                id=_entry_transfer_id(tournament, entry, leg, refund=refund),
                debit_account_id=debit.pk,
                credit_account_id=credit.pk,
                amount=amount,
                currency=tournament.currency,
                code=f"{code}_refund" if refund else code,
                reference=tournament.owner_ref,
                metadata={"user_id": entry.player_id, "entry": entry.number},
            )
        )
    return legs


def _append(tournament: Tournament, events: Iterable[TournamentEvent], actor: Actor) -> None:
    events_append(stream=tournament.stream, events=[e.new_event() for e in events], actor=actor)


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(f"No tournament {tournament_id}.", tournament=tournament_id)
    return tournament


def _start_due(tournament: Tournament, now: datetime) -> bool:
    """Whether the scheduled start has come (the start itself is the director's)."""
    return tournament.starts_at is not None and tournament.starts_at <= now


# --- create ----------------------------------------------------------------------------


def _check_structure(data: dict[str, Any]) -> None:
    """What the fields do not say alone: how they fit together."""
    if data["bounty"] > data["buy_in"]:
        raise InvalidRequest(
            f"the bounty {data['bounty']} is part of the buy-in {data['buy_in']}: it cannot "
            "be larger.",
            code="bounty_above_buy_in",
        )
    if data["max_players"] < data["min_players"]:
        raise InvalidRequest(
            f"max_players {data['max_players']} is below min_players {data['min_players']}.",
            code="invalid_player_bounds",
        )
    if data["seats_per_table"] > data["max_players"]:
        raise InvalidRequest(
            f"seats_per_table {data['seats_per_table']} is above max_players "
            f"{data['max_players']}.",
            code="invalid_player_bounds",
        )
    payouts = data["payouts"]
    if payouts is not None and sum(Decimal(p) for p in payouts) != 100:
        raise InvalidRequest(
            f"the payout percentages add up to {sum(Decimal(p) for p in payouts)}, not 100.",
            code="invalid_payouts",
        )
    levels = len(data["levels"])
    for name, level in (
        ("late_registration_levels", data["late_registration_levels"]),
        ("rebuy.until_level", (data["rebuy"] or {}).get("until_level", 0)),
        ("add_on.at_level", (data["add_on"] or {}).get("at_level", 0)),
        *(("breaks.after_level", b["after_level"]) for b in data["breaks"]),
    ):
        if level > levels:
            raise InvalidRequest(
                f"{name} {level} is beyond the {levels} levels of the structure.",
                code="level_out_of_range",
                field=name,
            )


def tournament_create(
    *, staff_user: AbstractBaseUser, key: uuid.UUID, actor: Actor = SYSTEM, **data: Any
) -> Tournament:
    """Creates a tournament open for registration (staff with ``tournaments.add_tournament``).

    ``data`` holds the fields of :class:`Tournament`'s structure with ``start``: None for
    a sit-and-go (starts when full) or the scheduled time; ``payouts``: percentages by
    place adding up to 100 (at most two decimals), or None for the room's default table. Idempotent by ``key``: a retry
    returns the tournament the first call created.
    """
    staff_require(staff_user, CREATE_PERMISSION)
    currency_validate(data["currency"])
    _check_structure(data)
    start: datetime | None = data.pop("start")
    if data["payouts"] is not None:  # stored and recorded as decimal text: "27.50"
        data["payouts"] = [f"{Decimal(p):.2f}" for p in data["payouts"]]
    if start is not None and start <= timezone.now():
        raise InvalidRequest("a scheduled start must be in the future.", code="start_in_past")
    existing = Tournament.objects.filter(created_key=key).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic(durable=True):
            tournament = Tournament.objects.create(
                **data,
                kind=Tournament.Kind.SIT_AND_GO if start is None else Tournament.Kind.SCHEDULED,
                starts_at=start,
                created_key=key,
                created_by=staff_user,
            )
            created = TournamentCreated(
                **data,
                kind=tournament.kind,
                starts_at=start.isoformat() if start else None,
                staff_id=staff_user.pk,
            )
            _append(tournament, [created], actor)
            staff_log_record(
                actor=staff_user, action="tournament.create", target=tournament.owner_ref
            )
    except IntegrityError:  # the same request raced us and won
        return Tournament.objects.get(created_key=key)
    return tournament


# --- registration ------------------------------------------------------------------------


def tournament_register(
    *, tournament_id: int, player: AbstractBaseUser, actor: Actor = SYSTEM
) -> Entry:
    """Registers ``player``: pays buy-in, bounty and fee from their cash, in one commit
    with the entry and the ``PlayerRegistered`` event. Refused: a player on a time-out or
    self-excluded (``account_restricted``), registered already, the field full, the
    registration closed, or not enough money (``insufficient_funds``)."""
    with transaction.atomic(durable=True):
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.REGISTERING or (
            _start_due(tournament, timezone.now()) and not tournament.late_registration_levels
        ):
            raise RegistrationClosed(
                f"Registration to tournament {tournament.pk} is closed ({tournament.status}).",
                tournament=tournament.pk,
                status=tournament.status,
            )
        restriction_check(user_id=player.pk, action="play")
        entries = Entry.objects.filter(tournament=tournament)
        live = entries.filter(status=Entry.Status.REGISTERED)
        if live.filter(player=player).exists():
            raise AlreadyRegistered(
                f"You are registered to tournament {tournament.pk} already.",
                tournament=tournament.pk,
            )
        if live.count() >= tournament.max_players:
            raise TournamentFull(
                f"Tournament {tournament.pk} is full ({tournament.max_players} players).",
                tournament=tournament.pk,
                max_players=tournament.max_players,
            )
        entry = Entry(
            tournament=tournament,
            player=player,
            number=entries.filter(player=player).count() + 1,
            buy_in=tournament.buy_in,
            fee=tournament.fee,
            bounty=tournament.bounty,
        )
        try:
            _entry_pay(tournament, entry, refund=False)
        except InsufficientFunds as refused:
            raise _cannot_afford(tournament, refused) from None
        entry.save()
        registered = PlayerRegistered(
            user_id=player.pk,
            username=player.get_username(),
            entry=entry.number,
            buy_in=entry.buy_in,
            fee=entry.fee,
            bounty=entry.bounty,
        )
        _append(tournament, [registered], actor)
        full = live.count() >= tournament.max_players
        if tournament.kind == Tournament.Kind.SIT_AND_GO and full and _when_full is not None:
            # Full: the start runs after this commit, in its own transactions (the table
            # commands'); a start that fails is logged and the sweeper retries it.
            start = _when_full
            transaction.on_commit(lambda: start(tournament.pk), robust=True)
        return entry


#: Called with the tournament's id after the commit of the registration that fills a
#: sit-and-go: the director's start (``tournaments.director`` builds on these services, so
#: it registers itself at ``ready()`` rather than being imported here).
_when_full: Callable[[int], object] | None = None


def tournament_full_register(callback: Callable[[int], object]) -> None:
    """Registers what starts a sit-and-go once the registration that fills it commits."""
    global _when_full
    _when_full = callback


def _cannot_afford(tournament: Tournament, refused: InsufficientFunds) -> InsufficientFunds:
    """The ledger's refusal, said in money as people read it."""
    currency, available = tournament.currency, refused.extra["available"]
    price = money_format(tournament.buy_in + tournament.fee, currency)
    return InsufficientFunds(
        f"Registering to {tournament.name} costs {price} "
        f"({money_format(tournament.buy_in, currency)} buy-in + "
        f"{money_format(tournament.fee, currency)} fee); your wallet holds "
        f"{money_format(available, currency)}.",
        currency=currency,
        available=available,
        required=tournament.buy_in + tournament.fee,
    )


def _refund(tournament: Tournament, entry: Entry, *, status: str, now: datetime) -> int:
    _entry_pay(tournament, entry, refund=True)
    entry.status = status
    entry.ended_at = now
    entry.save(update_fields=["status", "ended_at"])
    return entry.buy_in + entry.fee


def _not_started(tournament: Tournament, now: datetime, what: str) -> None:
    if tournament.status != Tournament.Status.REGISTERING or _start_due(tournament, now):
        raise TournamentStarted(
            f"Tournament {tournament.pk} has started ({tournament.status}): {what} is only "
            "possible before the start.",
            tournament=tournament.pk,
            status=tournament.status,
        )


def tournament_unregister(
    *, tournament_id: int, player: AbstractBaseUser, actor: Actor = SYSTEM
) -> Entry:
    """Unregisters ``player`` before the start: buy-in, bounty and fee refunded in full."""
    with transaction.atomic(durable=True):
        tournament = _locked(tournament_id)
        now = timezone.now()
        _not_started(tournament, now, "unregistering")
        entry = Entry.objects.filter(
            tournament=tournament, player=player, status=Entry.Status.REGISTERED
        ).first()
        if entry is None:
            raise NotRegistered(
                f"You are not registered to tournament {tournament.pk}.", tournament=tournament.pk
            )
        refunded = _refund(tournament, entry, status=Entry.Status.UNREGISTERED, now=now)
        unregistered = PlayerUnregistered(
            user_id=player.pk, username=player.get_username(), entry=entry.number, refunded=refunded
        )
        _append(tournament, [unregistered], actor)
        return entry


def tournament_cancel(
    *, tournament_id: int, staff_user: AbstractBaseUser, reason: str, actor: Actor = SYSTEM
) -> Tournament:
    """Cancels a tournament before the start (staff with ``tournaments.change_tournament``,
    with a reason): every live entry gets its buy-in, bounty and fee back, which leaves the
    tournament's accounts at exactly zero. (A cancellation after the start follows the
    rules' policy and comes with play.)"""
    staff_require(staff_user, CANCEL_PERMISSION)
    reason = (reason or "").strip()
    if not reason:
        raise InvalidRequest("A cancellation needs a reason.", code="reason_required")
    with transaction.atomic(durable=True):
        tournament = _locked(tournament_id)
        _not_started(tournament, timezone.now(), "cancelling with full refunds")
        refunded = _cancel_refunding(tournament, reason=reason, staff_id=staff_user.pk, actor=actor)
        staff_log_record(
            actor=staff_user,
            action="tournament.cancel",
            target=tournament.owner_ref,
            reason=reason,
            data={"refunded_entries": refunded},
        )
        return tournament


def _cancel_refunding(
    tournament: Tournament, *, reason: str, staff_id: int | None, actor: Actor
) -> int:
    """In the caller's transaction, holding the tournament's lock: every live entry's
    buy-in, bounty and fee refunded, the tournament cancelled (``TournamentCancelled``;
    ``staff_id`` None when the director cancels a scheduled start with too few players).
    Returns how many entries were refunded."""
    now = timezone.now()
    live = Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
    refunds = [
        _refund(tournament, entry, status=Entry.Status.REFUNDED, now=now)
        for entry in live.order_by("id")
    ]
    tournament.status = Tournament.Status.CANCELLED
    tournament.cancel_reason = reason
    tournament.save(update_fields=["status", "cancel_reason"])
    cancelled = TournamentCancelled(
        reason=reason, staff_id=staff_id, refunded_entries=len(refunds), refunded=sum(refunds)
    )
    _append(tournament, [cancelled], actor)
    return len(refunds)
