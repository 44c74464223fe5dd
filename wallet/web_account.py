"""The player's own pages: sign-up and the wallet (balances, lists, deposit, withdrawal,
reload play money, KYC review). The account history, which shows the hands too, is
composed above the wallet (``poker.web.account``) with this module's money helpers.

Thin: a page renders what selectors return; a form post calls one service and redirects
back with the outcome in words (a typed error said in the currency's units,
``wallet.web_refusals``), so a refresh never re-posts. Amounts are typed and shown in the
currency's units (``wallet.amounts``).
Money forms carry a key made when the page was rendered; the id of what a post creates
is derived from (player, key), so the same form posted twice moves money once.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST
from rest_framework.exceptions import Throttled

from core.errors import DomainError
from core.services import user_register
from core.throttling import login_failed, login_throttle_check
from wallet import selectors
from wallet.amounts import PLAY_MONEY, money_format
from wallet.forms import KycSubmitForm, MoneyForm, SignupForm
from wallet.kyc import kyc_status_of, kyc_submit
from wallet.models import Withdrawal
from wallet.reload import play_money_reload
from wallet.services import deposit_create, derived_id, withdrawal_cancel, withdrawal_request
from wallet.web_refusals import refusal_said

#: Rows per page of the transaction lists.
TRANSACTIONS_PER_PAGE = 25
#: Deposits and withdrawals shown on the wallet page (newest).
RECENT_PAYMENTS = 20
#: Months of the account history page (``poker.web.account``).
HISTORY_MONTHS = 12


SIGNUP_WELCOME = (
    "Welcome! Your play chips are in your wallet. Before you deposit, you may cap what you "
    "deposit per day, week or month here; or go straight to your wallet (header)."
)


def signup(request: HttpRequest) -> HttpResponse:
    """Creates the account (play chips included), logs the player in and offers the
    deposit limits (the limits page, then the wallet).

    Throttled like the login: a refused sign-up counts as a failed login for the address
    and the name, so names cannot be probed faster than passwords."""
    if request.user.is_authenticated:
        return HttpResponseRedirect(reverse("web-account-wallet"))
    form = SignupForm(request.POST or None)
    if request.method != "POST":
        return render(request, "wallet/signup.html", {"form": form})
    username = str(request.POST.get("username", ""))
    try:
        login_throttle_check(request, username)
    except Throttled as exc:
        context = {"form": SignupForm(), "throttled": str(exc.detail)}
        response = render(request, "wallet/signup.html", context, status=429)
        response["Retry-After"] = str(math.ceil(exc.wait or 1))
        return response
    if form.is_valid():
        try:
            user = user_register(
                username=form.cleaned_data["username"], password=form.cleaned_data["password"]
            )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            # Deposit limits are offered before any deposit: the first page is theirs.
            messages.info(request, SIGNUP_WELCOME)
            return HttpResponseRedirect(reverse("web-account-limits"))
    login_failed(request, username)
    return render(request, "wallet/signup.html", {"form": form}, status=400)


#: What a transfer's code means to the player whose money it moved.
TRANSFER_WORDS = {
    "signup_grant": "Sign-up chips",
    "play_money_reload": "Play money reload",
    "deposit": "Deposit",
    "withdrawal": "Withdrawal",
    "withdrawal_rejected": "Withdrawal rejected (money back)",
    "withdrawal_cancelled": "Withdrawal cancelled (money back)",
    "buy_in": "Table buy-in",
    "cash_out": "Table cash-out",
    "adjustment": "Correction by support",
    "correction": "Correction by support",
}
#: A transfer's status said to a player (a pending withdrawal's money is held).
STATUS_WORDS = {
    "posted": "done",
    "posted_from_pending": "done",
    "pending": "held",
    "voided": "cancelled",
}


def signed_rows(transfers: Any, own: set[int]) -> list[dict[str, Any]]:
    """Transfers as the player sees them: money in positive, money out negative, what
    and status in words."""
    return [
        {
            "transfer": t,
            "amount": t.amount if t.credit_account_id in own else -t.amount,
            "what": TRANSFER_WORDS.get(t.code, t.code.replace("_", " ").capitalize()),
            "status": STATUS_WORDS.get(t.status, t.status),
        }
        for t in transfers
    ]


def _key() -> str:
    return uuid.uuid4().hex


@login_required(login_url="web-login")
def wallet(request: HttpRequest) -> HttpResponse:
    user_id = request.user.pk
    assert user_id is not None  # login_required
    transfers, own = selectors.wallet_transactions(user_id=user_id)
    page = Paginator(transfers, TRANSACTIONS_PER_PAGE).get_page(request.GET.get("page"))
    balances = selectors.wallet_balances(user_id=user_id)
    context = {
        "balances": balances,
        "page": page,
        "transactions": signed_rows(page.object_list, own),
        "deposits": selectors.wallet_deposits(user_id=user_id)[:RECENT_PAYMENTS],
        "withdrawals": selectors.wallet_withdrawals(user_id=user_id)[:RECENT_PAYMENTS],
        # Held until staff pay them out: the player may still cancel them.
        "open_statuses": Withdrawal.OPEN,
        # A fresh key per render: each rendered form moves money at most once.
        "deposit_form": MoneyForm(initial={"key": _key()}, auto_id="deposit_%s"),
        "withdrawal_form": MoneyForm(initial={"key": _key()}, auto_id="withdrawal_%s"),
        "reload_key": _key(),
        "last_reload": selectors.wallet_last_reload(user_id=user_id),
        "next_reload_at": selectors.wallet_next_reload_at(user_id=user_id),
        "reload_target": settings.WALLET_RELOAD_CHIPS,
        "kyc_status": kyc_status_of(user_id=user_id),
        "kyc_form": KycSubmitForm(),
    }
    return render(request, "wallet/wallet.html", context)


def _back_to_wallet() -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("web-account-wallet"))


def _form_errors(request: HttpRequest, form: Any) -> None:
    for field, errors in form.errors.items():
        for error in errors:
            messages.error(
                request, error if field == "__all__" else f"{form[field].label}: {error}"
            )


@require_POST
@login_required(login_url="web-login")
def wallet_deposit(request: HttpRequest) -> HttpResponse:
    form = MoneyForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return _back_to_wallet()
    data = form.cleaned_data
    try:
        deposit = deposit_create(
            user=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
            deposit_id=derived_id("web-deposit", request.user.pk, data["key"]),
            amount=data["amount"],
            currency=data["currency"],
        )
    except DomainError as error:
        messages.error(request, refusal_said(error))
    else:
        messages.success(
            request,
            f"Deposit of {money_format(deposit.amount, deposit.currency)}: {deposit.status}.",
        )
    return _back_to_wallet()


@require_POST
@login_required(login_url="web-login")
def wallet_withdraw(request: HttpRequest) -> HttpResponse:
    form = MoneyForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return _back_to_wallet()
    data = form.cleaned_data
    try:
        withdrawal = withdrawal_request(
            user=request.user,  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
            withdrawal_id=derived_id("web-withdrawal", request.user.pk, data["key"]),
            amount=data["amount"],
            currency=data["currency"],
        )
    except DomainError as error:
        messages.error(request, refusal_said(error))
    else:
        messages.success(
            request,
            f"Withdrawal of {money_format(withdrawal.amount, withdrawal.currency)}: "
            f"{withdrawal.status}.",
        )
    return _back_to_wallet()


@require_POST
@login_required(login_url="web-login")
def wallet_withdrawal_cancel(request: HttpRequest, withdrawal_id: uuid.UUID) -> HttpResponse:
    """Cancels the player's own withdrawal that staff have not paid out: the held funds
    are available again. Posting it twice cancels once."""
    try:
        withdrawal = withdrawal_cancel(user=request.user, withdrawal_id=withdrawal_id)  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
    except DomainError as error:
        messages.error(request, refusal_said(error))
    else:
        messages.success(
            request,
            f"Withdrawal of {money_format(withdrawal.amount, withdrawal.currency)} cancelled: "
            "the money is available again.",
        )
    return _back_to_wallet()


@require_POST
@login_required(login_url="web-login")
def wallet_reload(request: HttpRequest) -> HttpResponse:
    key = str(request.POST.get("key", ""))[:64]
    if not key:
        messages.error(request, "The form has expired: please try again.")
        return _back_to_wallet()
    try:
        reload = play_money_reload(user=request.user, key=key)  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
    except DomainError as error:
        messages.error(request, refusal_said(error))
    else:
        messages.success(
            request, f"Play money reloaded: {money_format(reload.amount, PLAY_MONEY)} added."
        )
    return _back_to_wallet()


@require_POST
@login_required(login_url="web-login")
def wallet_kyc(request: HttpRequest) -> HttpResponse:
    form = KycSubmitForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return _back_to_wallet()
    try:
        kyc_submit(user=request.user, note=form.cleaned_data["note"])  # type: ignore[arg-type]  # request.user may be anonymous in the stubs; the view's guard lets only a signed-in user here
    except DomainError as error:
        messages.error(request, refusal_said(error))
    else:
        messages.success(request, "Your identity is pending review.")
    return _back_to_wallet()
