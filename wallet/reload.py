"""Reload play money: the player's CHIPS cash back up to ``WALLET_RELOAD_CHIPS``.

One ledger transfer (code ``play_money_reload``) from the house's play-money issuer, the
account ``signup_grant`` pays the sign-up chips from, at most once per
``WALLET_RELOAD_PERIOD_HOURS``. Chips on a table's seat do not count: only the cash
account is looked at and topped up.

The rule "once per period" is exact under races: the service locks the player's CHIPS
cash account row (``SELECT ... FOR UPDATE``) before reading the player's last reload,
so two reloads of one player run one after the other and the second sees the first.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from ledger.models import Account, AccountKind
from ledger.posting import TransferRequest
from ledger.services import ledger_post_transfers_in_transaction
from wallet.errors import ReloadNotNeeded, ReloadTooSoon
from wallet.models import PlayMoneyReload
from wallet.services import PLAY_MONEY, derived_id, house_account, player_account


def play_money_reload(*, user: AbstractBaseUser, key: uuid.UUID | str) -> PlayMoneyReload:
    """Tops the player's CHIPS cash up to ``WALLET_RELOAD_CHIPS``; idempotent by the
    player's ``key`` (a retry returns the first reload and moves nothing).

    Refuses with ``reload_not_needed`` when the cash is already at or above the target,
    and ``reload_too_soon`` (``extra.next_at``) within the period after the last reload.
    """
    # The row's id is the player's and the key's: one player's key never finds another's.
    reload_id = derived_id("play-money-reload", user.pk, key)
    existing = PlayMoneyReload.objects.filter(pk=reload_id).first()
    if existing is not None:
        return existing
    target = int(settings.WALLET_RELOAD_CHIPS)
    period = timedelta(hours=int(settings.WALLET_RELOAD_PERIOD_HOURS))
    issuer = house_account(kind=AccountKind.BONUS, currency=PLAY_MONEY)
    player = player_account(user_id=user.pk, currency=PLAY_MONEY)
    with transaction.atomic(durable=True):
        cash = Account.objects.select_for_update().get(pk=player.pk)
        # Under the lock: a racing retry of the same key has committed by now.
        existing = PlayMoneyReload.objects.filter(pk=reload_id).first()
        if existing is not None:
            return existing
        if cash.balance >= target:
            raise ReloadNotNeeded(
                f"You hold {cash.balance} {PLAY_MONEY}; a reload tops up to {target} only.",
                balance=cash.balance,
                target=target,
                currency=PLAY_MONEY,
            )
        last = (
            PlayMoneyReload.objects.filter(user_id=user.pk)
            .order_by("-created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        now = timezone.now()
        if last is not None and now < last + period:
            next_at = last + period
            raise ReloadTooSoon(
                f"Play money can be reloaded once every {period.total_seconds() / 3600:g} "
                f"hours; the next reload is possible at {next_at:%Y-%m-%d %H:%M} UTC.",
                next_at=next_at.isoformat(),
            )
        amount = target - cash.balance
        transfer_id = derived_id("play-money-reload-transfer", reload_id)
        ledger_post_transfers_in_transaction(
            transfers=[
                TransferRequest(
                    id=transfer_id,
                    debit_account_id=issuer.pk,
                    credit_account_id=cash.pk,
                    amount=amount,
                    currency=PLAY_MONEY,
                    code="play_money_reload",
                    reference=f"user:{user.pk}",
                )
            ]
        )
        return PlayMoneyReload.objects.create(
            id=reload_id, user_id=user.pk, amount=amount, transfer_id=transfer_id, created_at=now
        )
