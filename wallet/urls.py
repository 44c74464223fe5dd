"""Wallet and payment routes (included under ``api/v1/``)."""

from django.urls import path

from wallet import api, api_account, api_responsible

urlpatterns = [
    path("wallet/", api.WalletView.as_view(), name="wallet"),
    path("wallet/deposits/", api.DepositsView.as_view(), name="wallet-deposits"),
    path("wallet/withdrawals/", api.WithdrawalsView.as_view(), name="wallet-withdrawals"),
    path(
        "wallet/withdrawals/<uuid:pk>/",
        api.WithdrawalDetailView.as_view(),
        name="wallet-withdrawal",
    ),
    path(
        "wallet/withdrawals/<uuid:pk>/approve/",
        api.WithdrawalApproveView.as_view(),
        name="wallet-withdrawal-approve",
    ),
    path(
        "wallet/withdrawals/<uuid:pk>/reject/",
        api.WithdrawalRejectView.as_view(),
        name="wallet-withdrawal-reject",
    ),
    path(
        "wallet/withdrawals/<uuid:pk>/cancel/",
        api.WithdrawalCancelView.as_view(),
        name="wallet-withdrawal-cancel",
    ),
    path("wallet/transactions/", api.TransactionsView.as_view(), name="wallet-transactions"),
    path("account/limits/", api_responsible.AccountLimitsView.as_view(), name="account-limits"),
    path("account/timeout/", api_responsible.AccountTimeoutView.as_view(), name="account-timeout"),
    path(
        "account/self-exclusion/",
        api_responsible.AccountSelfExclusionView.as_view(),
        name="account-self-exclusion",
    ),
    path(
        "account/restrictions/",
        api_responsible.AccountRestrictionsView.as_view(),
        name="account-restrictions",
    ),
    path("account/reload/", api_account.ReloadView.as_view(), name="account-reload"),
    path("account/kyc/", api_account.KycView.as_view(), name="account-kyc"),
    path("account/history/", api_account.HistoryView.as_view(), name="account-history"),
    path("account/session/", api_account.SessionView.as_view(), name="account-session"),
    path("payments/webhooks/<str:gateway>/", api.WebhookView.as_view(), name="payments-webhook"),
]
