"""The staff dashboard: staff only, and its figures are those of the room."""

from __future__ import annotations

import uuid

import pytest
from django.db.models import Sum
from django.urls import reverse

from audit.models import AuditRun
from audit.services import audit_run
from fraud.models import Case
from handhistory.models import Hand, HandSummary
from ledger.models import AccountKind
from ledger.services import ledger_account_open, ledger_transfer
from tests.audit import conftest as audit_fixtures
from tests.support.poker import fund
from wallet.models import Deposit
from wallet.services import withdrawal_request

pytestmark = pytest.mark.django_db(transaction=True)

PAGE, FIGURES = "/staff/", "/staff/dashboard.json"

player, table, room = audit_fixtures.player, audit_fixtures.table, audit_fixtures.room


@pytest.fixture
def staff_client(client, make_user):
    client.force_login(make_user(role="support"))
    return client


@pytest.mark.parametrize("url", [PAGE, FIGURES])
def test_anonymous_visitors_are_sent_to_the_admin_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('admin:login')}?next={url}"


@pytest.mark.parametrize("url", [PAGE, FIGURES])
def test_players_are_refused_the_dashboard(client, make_user, url):
    client.force_login(make_user())
    assert client.get(url).status_code == 403


def test_the_admin_index_and_header_link_to_the_dashboard(staff_client):
    body = staff_client.get("/admin/").content.decode()
    assert 'data-testid="dashboard-link"' in body and 'data-testid="nav-dashboard"' in body
    assert body.count('href="/staff/"') == 2


def test_the_page_loads_chart_js_from_our_own_static_files(staff_client):
    body = staff_client.get(PAGE).content.decode()
    assert '<script src="/static/backoffice/vendor/chart.umd.min.js" defer></script>' in body
    assert "cdn" not in body.lower()
    script = staff_client.get("/static/backoffice/vendor/chart.umd.min.js")
    assert script.status_code == 200
    assert b"Chart.js v4.4.7" in b"".join(script.streaming_content)[:200]


def test_the_figures_are_those_of_the_played_room(staff_client, room, make_user):
    t, users = room
    # Money waiting: two deposits awaiting their gateway, one withdrawal awaiting staff.
    for amount in (1_500, 2_500):
        Deposit.objects.create(id=uuid.uuid4(), user=users[0], amount=amount, currency="EUR",
                               gateway="test")  # fmt: skip
    fund(users[1], 10_000, currency="EUR")
    withdrawal_request(user=users[1], withdrawal_id=uuid.uuid4(), amount=700, currency="EUR")
    # Fraud: two live cases and a dismissed one (not open: not counted).
    low = Case.objects.create(subject="pair:1-2", kinds=["soft_play"], score=3.2)
    high = Case.objects.create(subject="pair:3-4", kinds=["chip_dumping"], score=6.5,
                               status=Case.Status.REVIEWING)  # fmt: skip
    Case.objects.create(subject="pair:5-6", kinds=["ring"], score=9.9, status="dismissed")
    for check in AuditRun.Check.values:
        audit_run(check=check)

    f = staff_client.get(FIGURES).json()

    by_name = {row["name"]: row for row in f["tables"]}
    assert set(by_name) == {"T", "empty"}
    played = by_name["T"]
    finished = Hand.objects.filter(table=t, ended_at__isnull=False).count()
    assert played["seated"] == 4 and played["max_seats"] == 6
    assert played["hands_last_hour"] == Hand.objects.filter(table=t).count() == finished
    assert played["pot"] is None and played["hand"] is None  # between hands (paused)
    assert played["stakes"] == "50/100 CHIPS" and played["variant"] == "No-Limit Texas Hold'em"
    assert sum(h["hands"] for h in f["hands_per_hour"]) == finished
    assert len(f["hands_per_hour"]) == 30 * 24
    rake = HandSummary.objects.filter(table=t).aggregate(r=Sum("rake"))["r"]
    assert rake > 0
    assert sum(f["rake_per_day"]["currencies"]["CHIPS"]) == rake
    assert f["rake_per_day"]["currencies"]["CHIPS"][-1] == rake  # all of it today
    dealt = {p for ids in Hand.objects.values_list("player_ids", flat=True) for p in ids}
    assert f["players"] == {"seated": 4, "last_24h": len(dealt)}
    assert f["money"]["deposits"]["count"] == 2
    assert f["money"]["deposits"]["by_currency"] == {"EUR": {"count": 2, "sum": 4_000}}
    assert f["money"]["deposits"]["url"] == "/admin/wallet/deposit/?status__exact=pending"
    assert f["money"]["withdrawals"]["by_currency"] == {"EUR": {"count": 1, "sum": 700}}
    # The page's script shows those minor units in the currency's units ("€7.00").
    assert f["currencies"]["EUR"] == {"code": "EUR", "decimals": 2, "symbol": "€"}
    assert played["currency"] == "CHIPS"
    assert f["fraud"]["by_status"] == {"open": 1, "reviewing": 1}
    assert [c["id"] for c in f["fraud"]["top"]] == [high.pk, low.pk]
    assert f["fraud"]["top"][0]["url"] == f"/admin/fraud/case/{high.pk}/change/"
    assert [a["check"] for a in f["audits"]] == AuditRun.Check.values
    assert all(a["run"]["ok"] for a in f["audits"]), f["audits"]

    # The same figures are drawn into the page for its first paint.
    page = staff_client.get(PAGE)
    assert page.status_code == 200
    assert page.context["figures"]["players"] == f["players"]


def test_a_failed_audit_shows_red_with_its_problems(staff_client, room):
    t, _ = room
    assert audit_run(check="table_stakes").status == "passed"
    seat = t.seats.order_by("number").first()
    issuer = ledger_account_open(kind=AccountKind.BONUS, owner_ref="forger", currency="CHIPS",
                                 must_not_overdraw=False)  # fmt: skip
    ledger_transfer(transfer_id=uuid.uuid4(), debit_account_id=issuer.pk,
                    credit_account_id=seat.stake_account_id, amount=5, currency="CHIPS",
                    code="forged")  # fmt: skip
    failed = audit_run(check="table_stakes")
    audits = {a["check"]: a for a in staff_client.get(FIGURES).json()["audits"]}
    run = audits["table_stakes"]["run"]
    assert run["id"] == failed.pk and run["ok"] is False and run["status"] == "failed"
    assert run["failures"] == failed.failures and run["failure_count"] == 1
    assert run["url"] == f"/admin/audit/auditrun/{failed.pk}/change/"
    assert audits["ledger"]["run"] is None  # never run: no result to show
