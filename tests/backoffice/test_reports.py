"""Staff reports: figures equal sums computed here from the hands played and the payments
made; each CSV parses to the same figures; the profile and the staff hand view."""

from __future__ import annotations

import csv
import io
import random
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.test import Client

from backoffice.reports import Period, payments_report, rake_report
from handhistory.models import Hand, HandSummary, PlayerHandResult
from ledger.models import Transfer
from poker.commands.seating import table_sit
from staff.models import StaffAction
from tests.support.poker import actor_for, fund, key, play_random_hands
from tests.support.wallet import post
from wallet.amounts import money_format
from wallet.services import player_account, withdrawal_approve, withdrawal_reject

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _csv(response: Any) -> list[dict[str, str]]:
    assert response["Content-Type"].startswith("text/csv") and response.streaming
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def raked(make_user, table) -> dict[str, Any]:
    """Hands at two raked tables of different stakes and variants, by the same players."""
    tables = [
        table(name="Deep NT", variant="NT", small_blind=50, big_blind=100, rake_bps=500, rake_cap=300),
        table(name="Small PLO", variant="PO", small_blind=25, big_blind=50, min_buy_in=1_000,
              max_buy_in=10_000, rake_bps=500, rake_cap=100),
    ]  # fmt: skip
    users = [make_user(), make_user(), make_user()]
    rng = random.Random(7)
    for t in tables:
        for u in users:
            fund(u, 20_000)
            table_sit(table_id=t.pk, player_id=u.pk, buy_in=t.min_buy_in * 2, key=key(),
                      actor=actor_for(u))  # fmt: skip
        play_random_hands(t, users, 8, rng)
    return {"tables": tables, "users": users}


def _expected(key_of: Any) -> dict[tuple[str, str], tuple[int, int]]:
    """(key, currency) -> (raked hands, rake), from the hand summaries (not the ledger)."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for s in HandSummary.objects.select_related("table").filter(rake__gt=0):
        row = sums[(key_of(s), s.currency)]
        row[0] += 1
        row[1] += s.rake
    return {k: (v[0], v[1]) for k, v in sums.items()}


def test_rake_by_table_stake_variant_and_day_equals_the_hands_rake(raked, make_user) -> None:
    assert HandSummary.objects.filter(rake__gt=0).count() >= 4  # the figures are not all zero
    keys = {
        "table": lambda s: f"{s.table_id} {s.table.name}",
        "stake": lambda s: f"{s.table.small_blind}/{s.table.big_blind}",
        "variant": lambda s: s.table.variant,
        "day": lambda s: s.ended_at.astimezone(UTC).date().isoformat(),
    }
    period = Period.last()
    client = _client(make_user(role="support"))
    for by, key_of in keys.items():
        expected = _expected(key_of)
        rows = rake_report(by=by, period=period)
        assert {(r["key"], r["currency"]): (r["hands"], r["rake"]) for r in rows} == expected, by
        page = client.get(f"/staff/reports/rake/{by}/")
        assert page.status_code == 200
        assert page.content.decode().count('data-testid="rake-row"') == len(expected)
        parsed = _csv(client.get(f"/staff/reports/rake/{by}/?format=csv"))
        assert {
            (r[by], r["currency"]): (int(r["hands"]), int(r["rake_minor"])) for r in parsed
        } == expected
        assert all(r["rake"] == money_format(int(r["rake_minor"]), r["currency"]) for r in parsed)
    assert set(_expected(keys["variant"])) == {("NT", "CHIPS"), ("PO", "CHIPS")}
    # The ledger agrees: the same total went to the house's rake account.
    ledger = sum(Transfer.objects.filter(code="rake").values_list("amount", flat=True))
    assert ledger == sum(r for _, r in _expected(keys["table"]).values())
    # A period with no hands is empty.
    past = Period(since=date(2020, 1, 1), until=date(2020, 1, 31))
    assert rake_report(by="day", period=past) == []
    empty = client.get("/staff/reports/rake/day/?since=2020-01-01&until=2020-01-31&format=csv")
    assert _csv(empty) == []


def test_deposits_and_withdrawals_by_day_currency_and_status(player, make_user) -> None:
    finance = make_user(role="finance")
    amounts = [2_500, 700]
    for amount in amounts:
        assert (
            post(
                player, "/api/v1/wallet/deposits/", {"amount": amount, "currency": "EUR"}
            ).status_code
            == 201
        )
    ids = [post(player, "/api/v1/wallet/withdrawals/", {"amount": a, "currency": "EUR"}).json()["id"]
           for a in (1_000, 300, 500)]  # fmt: skip
    withdrawal_approve(withdrawal_id=ids[0], staff_user=finance, reason="ok")
    withdrawal_reject(withdrawal_id=ids[1], staff_user=finance, reason="kyc")
    today = datetime.now(UTC).date().isoformat()
    rows = {(r["day"], r["currency"], r["kind"]): r for r in payments_report(period=Period.last())}
    deposits, withdrawals = rows[(today, "EUR", "deposit")], rows[(today, "EUR", "withdrawal")]
    # The player fixture's own deposit is the 10,000.
    assert (deposits["count"], deposits["total"]) == (3, 10_000 + sum(amounts))
    assert (withdrawals["count"], withdrawals["total"]) == (3, 1_800)
    assert withdrawals["statuses"] == {"pending": {"count": 1, "sum": 500},
                                       "awaiting_second": {"count": 0, "sum": 0},
                                       "approved": {"count": 1, "sum": 1_000},
                                       "rejected": {"count": 1, "sum": 300},
                                       "cancelled": {"count": 0, "sum": 0}}  # fmt: skip
    client = _client(make_user(role="support"))
    assert client.get("/staff/reports/payments/").status_code == 200
    parsed = _csv(client.get("/staff/reports/payments/?format=csv"))
    got = {(r["kind"], r["status"]): (int(r["count"]), int(r["amount_minor"])) for r in parsed
           if r["day"] == today and r["currency"] == "EUR"}  # fmt: skip
    assert got[("deposit", "all")] == (3, 10_000 + sum(amounts))
    assert got[("withdrawal", "approved")] == (1, 1_000)
    assert got[("withdrawal", "all")] == (3, 1_800)
    tomorrow = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    later = client.get(f"/staff/reports/payments/?since={tomorrow}&until={tomorrow}&format=csv")
    assert _csv(later) == []


def test_a_players_profile_shows_balances_results_sessions_and_staff_lines(
    raked, make_user
) -> None:
    user = raked["users"][0]
    support = make_user(role="support")
    client = _client(support)
    search = client.get(f"/staff/reports/?q={user.username}").content.decode()
    assert f'href="/staff/players/{user.pk}/"' in search
    html = client.get(f"/staff/players/{user.pk}/").content.decode()
    cash = player_account(user_id=user.pk, currency="CHIPS")
    assert f'data-testid="available-CHIPS">{cash.available}<' in html
    results = PlayerHandResult.objects.filter(player=user)
    assert f'data-testid="hands-CHIPS">{results.count()}<' in html
    assert f'data-testid="net-CHIPS">{sum(r.net for r in results)}<' in html
    assert html.count("still seated") == 2  # one session at each table, still running
    hand_id = results.order_by("-ended_at").first().hand_id
    assert f'href="/staff/hands/{hand_id}/"' in html
    parsed = _csv(client.get(f"/staff/players/{user.pk}/?format=csv"))
    assert len(parsed) == min(results.count(), 50)
    # Viewing a hand of theirs with every card is on the staff log, and on their profile.
    client.get(f"/staff/hands/{hand_id}/")
    assert "hand.view_full" in client.get(f"/staff/players/{user.pk}/").content.decode()
    assert client.get("/staff/players/999999999/").status_code == 404


def test_the_staff_hand_view_shows_every_card_the_verified_deal_and_the_transfers(
    raked, make_user
) -> None:
    support = make_user(role="support")
    summary = HandSummary.objects.filter(rake__gt=0).order_by("hand_id").first()
    html = _client(support).get(f"/staff/hands/{summary.hand_id}/").content.decode()
    assert 'data-testid="full-view"' in html and "Verified" in html
    transfers = Transfer.objects.filter(reference=f"hand:{summary.hand_id}")
    assert html.count('data-testid="hand-transfer"') == transfers.count() > 0
    assert transfers.filter(code="rake").get().amount == summary.rake
    (line,) = StaffAction.objects.filter(action="hand.view_full")
    assert (line.actor, line.target) == (support, f"hand:{summary.hand_id}")
    assert line.data["players"] == sorted(Hand.objects.get(pk=summary.hand_id).player_ids)
    # Players, even of that hand, are refused it.
    assert _client(raked["users"][0]).get(f"/staff/hands/{summary.hand_id}/").status_code == 403


def test_every_card_over_rest_needs_the_hand_permission_and_is_logged(
    raked, make_user, auth_client
) -> None:
    hand_id = HandSummary.objects.order_by("hand_id").first().hand_id
    bare = auth_client(make_user(staff=True))  # staff, but in no role
    for query in ({"full": 1}, {"full": 1, "format": "phh"}):
        refused = bare.get(f"/api/v1/hands/{hand_id}/", query)
        assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert bare.get(f"/api/v1/hands/{hand_id}/fairness/", {"full": 1}).status_code == 403
    assert not StaffAction.objects.exists()
    support = auth_client(make_user(role="support"))
    assert support.get(f"/api/v1/hands/{hand_id}/", {"full": 1, "format": "phh"}).status_code == 200
    (line,) = StaffAction.objects.all()
    assert (line.actor, line.action) == (support.user, "hand.export_full")
    assert line.data["filters"]["hand_ids"] == [hand_id]


def test_a_players_profile_shows_their_deposit_limits_and_identity_review(make_user) -> None:
    from wallet.kyc import kyc_status_set
    from wallet.responsible import deposit_limit_set

    player = make_user()
    deposit_limit_set(user=player, currency="EUR", period="week", amount=20_000)
    kyc_status_set(staff_user=make_user(role="risk"), user_id=player.pk, status="verified",
                   reason="passport checked")  # fmt: skip
    html = _client(make_user(role="support")).get(f"/staff/players/{player.pk}/").content.decode()
    row = html.split('data-testid="deposit-limit-EUR-week"', 1)[1].split("</tr>", 1)[0]
    assert ">€200.00<" in row and "20000" not in row
    assert 'data-testid="deposit-limit-EUR-day"' not in html  # limits never set stay out
    assert '<span data-testid="kyc-status">verified</span>' in html
    assert "unverified → verified" in html and "passport checked" in html


def test_a_profile_session_counts_its_top_ups_in_the_buy_in_and_shows_euros(
    table, make_user
) -> None:
    from poker.commands.seating import table_leave, table_top_up

    eur = table(name="Euro NT", currency="EUR", small_blind=5, big_blind=10, min_buy_in=1_000,
                max_buy_in=20_000)  # fmt: skip
    player = make_user()
    fund(player, 30_000, currency="EUR")
    table_sit(table_id=eur.pk, player_id=player.pk, buy_in=10_000, key=key(),
              actor=actor_for(player))  # fmt: skip
    table_top_up(table_id=eur.pk, player_id=player.pk, amount=4_000, key=key(),
                 actor=actor_for(player))  # fmt: skip
    table_top_up(table_id=eur.pk, player_id=player.pk, amount=1_000, key=key(),
                 actor=actor_for(player))  # fmt: skip
    table_leave(table_id=eur.pk, player_id=player.pk, key=key(), actor=actor_for(player))

    html = _client(make_user(role="support")).get(f"/staff/players/{player.pk}/").content.decode()
    row = html.split('data-testid="session-row"', 1)[1].split("</tr>", 1)[0]
    # Bought in for 100.00 and topped up 50.00; left with the 150.00: net nothing.
    assert 'data-buy-in="15000"' in row and 'data-cashed-out="15000"' in row
    assert 'data-net="0"' in row
    assert ">€150.00<" in row and ">€0.00<" in row
    assert "10000" not in row.split(">", 1)[1]


def test_the_rake_report_names_a_euro_tables_stake_and_rake_in_euros(table, make_user) -> None:
    eur = table(name="Euro NT", currency="EUR", small_blind=5, big_blind=10, min_buy_in=1_000,
                max_buy_in=2_000, rake_bps=500, rake_cap=30)  # fmt: skip
    users = [make_user(), make_user()]
    for u in users:
        fund(u, 2_000, currency="EUR")
        table_sit(table_id=eur.pk, player_id=u.pk, buy_in=2_000, key=key(), actor=actor_for(u))
    play_random_hands(eur, users, 6, random.Random(3))
    rake = sum(HandSummary.objects.filter(table=eur).values_list("rake", flat=True))
    assert rake > 0

    html = _client(make_user(role="support")).get("/staff/reports/rake/stake/").content.decode()
    row = html.split('data-testid="rake-row"', 1)[1].split("</tr>", 1)[0]
    assert ">€0.05/€0.10<" in row
    assert f">{money_format(rake, 'EUR')}<" in row
    assert f'data-testid="rake-minor">{rake}<' in row
