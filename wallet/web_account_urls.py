"""Routes of the player's account pages (mounted at ``account/``; ``/signup/`` is mounted
at the root by ``config.urls``)."""

from __future__ import annotations

from django.urls import path

from wallet import web_account

urlpatterns = [
    path("wallet/", web_account.wallet, name="web-account-wallet"),
    path("wallet/deposit/", web_account.wallet_deposit, name="web-account-deposit"),
    path("wallet/withdraw/", web_account.wallet_withdraw, name="web-account-withdraw"),
    path(
        "wallet/withdrawals/<uuid:withdrawal_id>/cancel/",
        web_account.wallet_withdrawal_cancel,
        name="web-account-withdrawal-cancel",
    ),
    path("wallet/reload/", web_account.wallet_reload, name="web-account-reload"),
    path("wallet/kyc/", web_account.wallet_kyc, name="web-account-kyc"),
]
