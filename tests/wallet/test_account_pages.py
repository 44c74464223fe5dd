"""The player's pages through Django's test client: sign-up, wallet, forms, history."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from ledger.models import Transfer
from wallet.models import Deposit, PlayMoneyReload, Withdrawal
from wallet.selectors import wallet_balances
from wallet.services import withdrawal_approve

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Str0ng-enough!"


def balance(user, currency: str) -> dict[str, int]:
    return next(b for b in wallet_balances(user_id=user.pk) if b["currency"] == currency)


@pytest.fixture
def web(make_user):
    user = make_user()
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def form_key(html: str, form: str) -> str:
    section = html.split(f'data-testid="{form}"', 1)[1]
    return re.search(r'name="key" value="([^"]+)"', section).group(1)


def test_sign_up_creates_the_player_with_chips_logs_in_and_offers_deposit_limits(settings):
    settings.WALLET_SIGNUP_CHIPS = 50_000
    client = Client()
    response = client.post(
        "/signup/", {"username": "newbie", "password": PASSWORD, "confirm": PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == "/account/limits/"
    assert "Welcome!" in client.get("/account/limits/").content.decode()
    page = client.get("/account/wallet/")
    assert page.status_code == 200
    assert page.context["user"].get_username() == "newbie"
    assert 'data-testid="balance-CHIPS" data-balance="50000"' in page.content.decode()
    # The grant in the player's words, not the ledger's code.
    row = page.content.decode().split('data-code="signup_grant"', 1)[1].split("</tr>", 1)[0]
    assert "<td>Sign-up chips</td>" in row and "<td>done</td>" in row


@pytest.mark.parametrize(
    ("username", "password", "confirm", "words"),
    [
        ("taken", PASSWORD, PASSWORD, "is taken"),
        ("someone", "123", "123", "too short"),
        ("someone", PASSWORD, PASSWORD + "x", "The two passwords differ."),
    ],
)
def test_sign_up_refusals_are_shown_in_words(make_user, username, password, confirm, words):
    make_user("taken")
    response = Client().post(
        "/signup/", {"username": username, "password": password, "confirm": confirm}
    )
    assert response.status_code == 400
    assert words in response.content.decode()


def test_sign_up_is_throttled_like_the_login(settings, make_user):
    settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS = 2
    from django.core.cache import cache

    cache.clear()
    make_user("taken")
    client = Client()
    for _ in range(2):
        bad = {"username": "taken", "password": PASSWORD, "confirm": PASSWORD}
        assert client.post("/signup/", bad).status_code == 400
    good = {"username": "fresh", "password": PASSWORD, "confirm": PASSWORD}
    response = client.post("/signup/", good)
    assert response.status_code == 429 and "Retry-After" in response
    cache.clear()


@pytest.mark.parametrize("url", ["/account/wallet/", "/account/history/"])
def test_the_account_pages_send_anonymous_visitors_to_the_login(url):
    response = Client().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_the_wallet_page_shows_balances_transactions_deposits_and_withdrawals(web):
    page = web.get("/account/wallet/").content.decode()
    key = form_key(page, "deposit-form")
    web.post("/account/wallet/deposit/", {"key": key, "amount": "50", "currency": "EUR"})
    key = form_key(web.get("/account/wallet/").content.decode(), "withdrawal-form")
    web.post("/account/wallet/withdraw/", {"key": key, "amount": "12", "currency": "EUR"})
    html = web.get("/account/wallet/").content.decode()
    assert (
        'data-testid="balance-EUR" data-balance="5000" data-held="1200" data-available="3800"'
        in html
    )
    assert 'data-testid="deposit-row" data-status="confirmed"' in html
    assert 'data-testid="withdrawal-row" data-status="pending"' in html
    assert 'data-code="deposit" data-amount="5000"' in html
    assert 'data-code="withdrawal" data-amount="-1200"' in html


def test_the_wallet_page_reads_in_the_currencys_units_never_minor_units(web, settings):
    settings.WALLET_RELOAD_CHIPS = 100_000
    web.post("/account/wallet/reload/", {"key": "r"})
    web.post("/account/wallet/deposit/", {"key": "d", "amount": "1234.5", "currency": "EUR"})
    web.post("/account/wallet/withdraw/", {"key": "w", "amount": "12", "currency": "EUR"})
    html = web.get("/account/wallet/").content.decode()
    row = html.split('data-testid="balance-EUR"', 1)[1].split("</tr>", 1)[0]
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert cells == ["1,234.50", "12.00", "1,222.50"]
    chips = html.split('data-testid="balance-CHIPS"', 1)[1].split("</tr>", 1)[0]
    assert re.findall(r'<td class="num">([^<]*)</td>', chips)[0] == "100,000"
    assert '<td class="num">+1,234.50</td>' in html and '<td class="num">-12.00</td>' in html
    assert '<td class="num" data-amount="123450">1,234.50</td>' in html  # the deposits list
    assert 'data-testid="deposit-unit">EUR<' in html
    assert "minor units" not in html.lower()


def test_a_deposit_typed_as_25_50_lands_2550_minor_units(web):
    response = web.post(
        "/account/wallet/deposit/", {"key": "d", "amount": "25.50", "currency": "EUR"},
        follow=True,
    )  # fmt: skip
    assert Deposit.objects.get(user=web.user).amount == 2_550
    assert balance(web.user, "EUR")["balance"] == 2_550
    assert "Deposit of €25.50: confirmed." in response.content.decode()


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("25.505", "EUR amounts have at most 2 decimals: 25.505 is not a valid amount."),
        ("-5", "Enter an amount above zero."),
        ("0", "Enter an amount above zero."),
        ("ten", "Enter an amount in EUR such as 25 or 25.50"),
        ("25,50", "Enter an amount in EUR such as 25 or 25.50"),
    ],
)
def test_a_bad_amount_is_refused_in_words_and_moves_nothing(web, typed, said):
    response = web.post(
        "/account/wallet/deposit/", {"key": "d", "amount": typed, "currency": "EUR"},
        follow=True,
    )  # fmt: skip
    assert f"Amount: {said}" in response.content.decode()
    assert not Deposit.objects.exists()


def test_each_render_of_the_wallet_gives_the_forms_fresh_keys(web):
    first, second = (web.get("/account/wallet/").content.decode() for _ in range(2))
    assert form_key(first, "deposit-form") != form_key(second, "deposit-form")
    assert form_key(first, "deposit-form") != form_key(first, "withdrawal-form")


def test_a_deposit_form_posted_twice_moves_money_once(web):
    key = form_key(web.get("/account/wallet/").content.decode(), "deposit-form")
    body = {"key": key, "amount": "25", "currency": "EUR"}
    for _ in range(2):
        assert web.post("/account/wallet/deposit/", body).status_code == 302
    assert Deposit.objects.filter(user=web.user).count() == 1
    assert balance(web.user, "EUR")["balance"] == 2_500


def test_a_withdrawal_form_posted_twice_holds_once(web):
    web.post("/account/wallet/deposit/", {"key": "d", "amount": "90", "currency": "EUR"})
    body = {"key": "w", "amount": "30", "currency": "EUR"}
    for _ in range(2):
        assert web.post("/account/wallet/withdraw/", body).status_code == 302
    assert Withdrawal.objects.filter(user=web.user).count() == 1
    assert balance(web.user, "EUR")["held"] == 3_000


def test_refusals_are_shown_in_the_currencys_units(web, settings):
    settings.WALLET_WITHDRAWAL_MIN = 100
    response = web.post(
        "/account/wallet/withdraw/", {"key": "w", "amount": "0.50", "currency": "EUR"}, follow=True
    )
    assert "The minimum withdrawal is €1.00." in response.content.decode()
    response = web.post(
        "/account/wallet/withdraw/", {"key": "w2", "amount": "5", "currency": "EUR"}, follow=True
    )
    assert "Insufficient funds: €0.00 available, €5.00 needed." in response.content.decode()
    assert not Withdrawal.objects.exists()


def test_a_deposit_over_the_players_limit_is_refused_in_the_currencys_units(web):
    from wallet.responsible import deposit_limit_set

    deposit_limit_set(user=web.user, currency="EUR", period="day", amount=5_000)
    web.post("/account/wallet/deposit/", {"key": "d1", "amount": "30", "currency": "EUR"})
    response = web.post(
        "/account/wallet/deposit/", {"key": "d2", "amount": "25", "currency": "EUR"}, follow=True
    )
    said = "Your deposit limit is €50.00 per 24 hours; €30.00 deposited in that time, "
    assert f"{said}€20.00 left." in response.content.decode()
    assert "minor units" not in response.content.decode()
    assert balance(web.user, "EUR")["balance"] == 3_000


def test_the_reload_button_tops_up_once_per_period(web, settings):
    settings.WALLET_RELOAD_CHIPS = 1_000
    before = Transfer.objects.count()
    page = web.get("/account/wallet/").content.decode()
    response = web.post(
        "/account/wallet/reload/", {"key": form_key(page, "reload-form")}, follow=True
    )
    assert "Play money reloaded: 1,000 CHIPS added." in response.content.decode()
    assert Transfer.objects.count() == before + 1
    settings.WALLET_RELOAD_CHIPS = 5_000
    page = response.content.decode()
    response = web.post(
        "/account/wallet/reload/", {"key": form_key(page, "reload-form")}, follow=True
    )
    assert "the next reload is possible at" in response.content.decode()
    assert PlayMoneyReload.objects.filter(user=web.user).count() == 1
    first = PlayMoneyReload.objects.get(user=web.user)
    due = timezone.localtime(first.created_at + timedelta(hours=24), UTC)
    assert f'data-testid="next-reload">{due:%Y-%m-%d %H:%M} UTC<' in response.content.decode()
    # Once the period is over, the page no longer says when.
    PlayMoneyReload.objects.filter(pk=first.pk).update(
        created_at=first.created_at - timedelta(hours=24)
    )
    assert 'data-testid="next-reload"' not in web.get("/account/wallet/").content.decode()


def test_a_player_asks_for_identity_review_from_the_wallet(web):
    response = web.post("/account/wallet/kyc/", {"note": "id sent"}, follow=True)
    assert 'data-testid="kyc-status">pending<' in response.content.decode()


def test_the_history_page_shows_this_months_totals(web):
    web.post("/account/wallet/deposit/", {"key": "d", "amount": "7", "currency": "EUR"})
    response = web.get("/account/history/")
    assert response.status_code == 200
    this_month = response.context["months"][0]
    eur = next(c for c in this_month["currencies"] if c["currency"] == "EUR")
    assert eur["deposits"] == 700
    assert len(response.context["months"]) == 12
    assert f'data-testid="history-{this_month["month"]}-EUR" data-deposits="700"' in (
        response.content.decode()
    )


def test_the_header_links_to_the_wallet_and_history_and_the_login_to_sign_up(web):
    html = web.get("/").content.decode()
    assert 'href="/account/wallet/"' in html and 'href="/account/history/"' in html
    assert 'href="/signup/"' in Client().get("/login/").content.decode()
    assert 'data-testid="nav-signup"' in Client().get("/").content.decode()


@pytest.mark.parametrize(
    ("limits", "posts", "said"),
    [
        (
            {"WALLET_DEPOSIT_MAX": 10_000},
            [("deposit", "100.01")],
            "A deposit is at most €100.00.",
        ),
        (
            {"WALLET_DEPOSIT_DAILY_MAX": 5_000},
            [("deposit", "30"), ("deposit", "25")],
            "Deposits are limited to €50.00 per 24 hours; €30.00 already deposited.",
        ),
        (
            {"WALLET_WITHDRAWAL_DAILY_MAX": 5_000},
            [("deposit", "100"), ("withdraw", "40"), ("withdraw", "20")],
            "Withdrawals are limited to €50.00 per 24 hours; €40.00 already requested.",
        ),
        (
            {"WALLET_KYC_WITHDRAWAL_THRESHOLD": 2_000},
            [("deposit", "100"), ("withdraw", "30")],
            "Withdrawals above €20.00 need a verified identity (yours is unverified). "
            "Ask for a review on your wallet page.",
        ),
        (
            {"WALLET_RELOAD_CHIPS": 1_000},
            [("reload", ""), ("reload", "")],
            "You hold 1,000 CHIPS; a reload tops up to 1,000 CHIPS only.",
        ),
    ],
)
def test_each_money_refusal_is_said_in_the_currencys_units(web, settings, limits, posts, said):
    for name, value in limits.items():
        setattr(settings, name, value)
    for n, (action, amount) in enumerate(posts):
        body = {"key": f"k{n}", "amount": amount, "currency": "EUR"}
        response = web.post(f"/account/wallet/{action}/", body, follow=True)
    errors = re.findall(r'data-testid="message-error"[^>]*>([^<]*)<', response.content.decode())
    assert errors == [said]


def test_the_history_shows_a_pending_withdrawal_as_pending_not_withdrawn(web, make_user):
    web.post("/account/wallet/deposit/", {"key": "d", "amount": "90", "currency": "EUR"})
    web.post("/account/wallet/withdraw/", {"key": "w1", "amount": "50", "currency": "EUR"})
    web.post("/account/wallet/withdraw/", {"key": "w2", "amount": "20", "currency": "EUR"})
    paid = Withdrawal.objects.get(amount=2_000)
    withdrawal_approve(
        withdrawal_id=paid.pk, staff_user=make_user("cashier", role="finance"), reason="paid"
    )

    response = web.get("/account/history/")
    eur = next(c for c in response.context["months"][0]["currencies"] if c["currency"] == "EUR")
    assert (eur["withdrawals"], eur["withdrawals_pending"]) == (2_000, 5_000)
    row = response.content.decode().split(
        f'data-testid="history-{response.context["months"][0]["month"]}-EUR"'
    )[1]
    row = row.split("</tr>")[0]
    assert 'data-withdrawals="2000"' in row and 'data-withdrawals-pending="5000"' in row
    assert ">20.00<" in row and ">50.00<" in row
    api = web.get("/api/v1/account/history/?months=1").json()["months"][0]["currencies"]
    assert {c["currency"]: (c["withdrawals"], c["withdrawals_pending"]) for c in api}["EUR"] == (
        2_000,
        5_000,
    )
