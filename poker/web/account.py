"""The player's account history page: the months' money and hand totals, the
transactions and the hands played.

It shows both the wallet's money and the hands, so it is composed here, above the two
(``wallet`` sits below the tables and names no hand); the wallet's own pages are
``wallet.web_account``, whose helpers for the money part this page shares.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from poker import selectors
from wallet import selectors as wallet_selectors
from wallet.web_account import HISTORY_MONTHS, TRANSACTIONS_PER_PAGE, signed_rows


@login_required(login_url="web-login")
def history(request: HttpRequest) -> HttpResponse:
    """Twelve months: totals per month and currency, the transactions and the hands."""
    user_id = request.user.pk
    assert user_id is not None  # login_required
    months = wallet_selectors.account_history(user_id=user_id, months=HISTORY_MONTHS)
    first_day = datetime.strptime(months[-1]["month"], "%Y-%m").replace(tzinfo=UTC)
    transfers, own = wallet_selectors.wallet_transactions(user_id=user_id)
    transfer_page = Paginator(
        transfers.filter(created_at__gte=first_day), TRANSACTIONS_PER_PAGE
    ).get_page(request.GET.get("tpage"))
    hands = selectors.hands_of(player_id=user_id, since=first_day.date())
    hand_page = Paginator(hands, TRANSACTIONS_PER_PAGE).get_page(request.GET.get("hpage"))
    context = {
        "months": months,
        "transfer_page": transfer_page,
        "transactions": signed_rows(transfer_page.object_list, own),
        "hand_page": hand_page,
        "hands": selectors.hand_rows(summaries=list(hand_page.object_list), player_id=user_id),
    }
    return render(request, "wallet/history.html", context)
