"""Staff roles: least privilege, refused before anything is written, every staff page and
endpoint closed to players, and one staff log line per staff change."""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from core.errors import Forbidden
from fraud.services import case_assign, case_confirm, case_dismiss, case_note, case_review
from handhistory.models import Hand
from ledger.audit import ledger_audit
from ledger.models import Account, Transfer
from poker.commands.seating import table_sit
from poker.commands.staff import staff_actor, table_close, table_pause, table_resume
from staff.models import StaffAction
from tests.support.poker import actor_for, fund, key, play_random_hands
from tests.support.wallet import post
from wallet.models import Restriction, Withdrawal
from wallet.restrictions import restriction_impose, restriction_lift
from wallet.services import (
    adjustment_create,
    correction_create,
    player_account,
    withdrawal_approve,
    withdrawal_reject,
)

pytestmark = pytest.mark.django_db


def _perms(role: str) -> set[str]:
    group = Group.objects.get(name=role)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}


def test_the_roles_grant_least_privilege() -> None:
    support, finance, risk, everything = (
        _perms(r) for r in ("support", "finance", "risk", "admin")
    )
    assert {"wallet.view_withdrawal", "ledger.view_transfer", "handhistory.view_hand", "auth.view_user",
            "staff.view_staffaction"} <= support  # fmt: skip
    assert all(p.split(".")[1].startswith("view_") for p in support)
    assert not any(p.startswith("fraud.") for p in support)
    assert finance - support == {"wallet.approve_withdrawal", "wallet.add_adjustment",
                                 "wallet.add_correction"}  # fmt: skip
    assert {"fraud.change_case", "fraud.view_case", "wallet.lift_restriction"} <= risk - support
    assert "wallet.approve_withdrawal" not in risk and "wallet.add_adjustment" not in risk
    assert support | finance | risk < everything and "auth.change_user" in everything


# --- every staff page and endpoint is closed to players ---------------------------------


def _walk(patterns: list[Any], prefix: str = "") -> list[tuple[str, URLPattern]]:
    found = []
    for p in patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            found += _walk(p.url_patterns, route)
        else:
            found.append((route, p))
    return found


def _concrete(route: str) -> str:
    """A path for a route: typed converters get a plausible value, regex groups a digit."""
    route = re.sub(r"<(?:int|id):[^>]+>", "1", route)
    route = re.sub(r"<str:by>", "day", route)
    route = re.sub(r"<(?:str|slug|uuid|path):[^>]+>|<[^>:]+>",
                   "00000000-0000-0000-0000-000000000001", route)  # fmt: skip
    route = re.sub(r"\(\?P<[^>]+>[^)]*\)", "1", route)
    return "/" + route.lstrip("^").replace("$", "").replace("\\Z", "").replace("\\", "")


def _routes(mount: str) -> list[str]:
    """Every concrete path under ``mount`` in the root URLconf (new pages included)."""
    paths = [_concrete(route) for route, _ in _walk(get_resolver().url_patterns)]
    return sorted({p for p in paths if p.startswith(mount)})


def test_route_walk_finds_the_staff_pages_and_admin() -> None:
    staff = _routes("/staff/")
    assert {"/staff/reports/", "/staff/players/1/", "/staff/hands/1/",
            "/staff/2fa/setup/"} <= set(staff)  # fmt: skip
    assert "/admin/wallet/withdrawal/" in _routes("/admin/")
    assert len(_routes("/admin/")) > 50 and admin.site.is_registered(Withdrawal)


def test_a_player_is_refused_every_staff_page_and_every_admin_page(make_user) -> None:
    client = Client()
    client.force_login(make_user())
    paths = _routes("/staff/") + [
        p for p in _routes("/admin/") if not p.startswith(("/admin/login/", "/admin/logout/"))
    ]
    answers = {path: client.get(path).status_code for path in paths}
    assert {p: s for p, s in answers.items() if s != 403} == {}
    # Not signed in: the login page, never the content.
    anonymous = Client()
    for path in [*_routes("/staff/reports/"), "/admin/wallet/withdrawal/"]:
        response = anonymous.get(path)
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_player_is_refused_every_staff_endpoint(auth_client, make_user) -> None:
    """The wallet's staff decisions answer 403; the fraud review answers 404 to anyone
    but a reviewer (as for a path that does not exist: a player must not learn that a case
    is open about them)."""
    client = auth_client(make_user())
    fraud = _routes("/api/v1/fraud/")
    assert fraud, "the fraud API is mounted"
    for path in fraud:
        for method in ("get", "post"):
            status = getattr(client, method)(path, {}, format="json",
                                              HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4())).status_code  # fmt: skip
            assert status in (404, 405), (method, path, status)
    staff_only = [
        p for p in _routes("/api/v1/wallet/withdrawals/") if p.endswith(("/approve/", "/reject/"))
    ]
    assert len(staff_only) == 2
    for path in staff_only:
        response = client.post(path, {}, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"


# --- withdrawals: support refused, finance allowed --------------------------------------


@pytest.fixture
def pending(player: Any) -> Withdrawal:
    body = post(player, "/api/v1/wallet/withdrawals/", {"amount": 1_000, "currency": "EUR"}).json()
    return Withdrawal.objects.get(pk=body["id"])


def _review(user: Any, withdrawal: Withdrawal, **body: str) -> Any:
    """The withdrawal's review page as ``user``: read it, or post a decision."""
    client = Client()
    client.force_login(user)
    url = f"/staff/withdrawals/{withdrawal.pk}/"
    return client.post(url, body, follow=True) if body else client.get(url)


def test_support_cannot_approve_a_withdrawal_on_its_review_page_or_the_service(
    make_user, pending
) -> None:
    support = make_user(role="support")
    transfers, account = (
        Transfer.objects.count(),
        player_account(user_id=pending.user_id, currency="EUR"),
    )
    before = Account.objects.values("balance", "held").get(pk=account.pk)
    page = _review(support, pending)
    assert page.status_code == 200
    assert 'data-testid="decision-form"' not in page.content.decode()  # no decision offered
    assert _review(support, pending, decision="approve", reason="fine").status_code == 403
    with pytest.raises(Forbidden) as refused:
        withdrawal_approve(withdrawal_id=pending.pk, staff_user=support, reason="fine")
    assert refused.value.code == "permission_denied" and refused.value.status == 403
    with pytest.raises(Forbidden):
        withdrawal_reject(withdrawal_id=pending.pk, staff_user=support, reason="no")
    pending.refresh_from_db()
    assert pending.status == "pending" and pending.decided_by is None
    assert Transfer.objects.count() == transfers
    assert Account.objects.values("balance", "held").get(pk=account.pk) == before
    assert not StaffAction.objects.exists()


def test_finance_approves_a_withdrawal_on_its_review_page_and_the_staff_log_says_so(
    make_user, pending
) -> None:
    finance = make_user(role="finance")
    page = _review(finance, pending, decision="approve", reason="KYC fine")
    assert "Withdrawal approved (paid out)." in page.content.decode()
    pending.refresh_from_db()
    assert pending.status == "approved" and pending.decided_by == finance
    (line,) = StaffAction.objects.all()
    assert (line.actor, line.action, line.target, line.subject_id, line.reason) == (
        finance,
        "withdrawal.approve",
        f"withdrawal:{pending.pk}",
        pending.user_id,
        "KYC fine",
    )
    assert line.data == {"amount": 1_000, "currency": "EUR", "first_approved_by": None}
    # Approving again changes nothing and logs nothing.
    withdrawal_approve(withdrawal_id=pending.pk, staff_user=finance, reason="again")
    assert StaffAction.objects.count() == 1 and ledger_audit().ok


# --- the staff log: one line per change, none for a refusal -----------------------------


def _lines() -> list[tuple[str, str, int | None, str]]:
    return [(a.action, a.target, a.subject_id, a.reason)
            for a in StaffAction.objects.order_by("id")]  # fmt: skip


def test_each_wallet_staff_change_writes_one_line_and_a_refusal_none(make_user, player) -> None:
    finance, support = make_user(role="finance"), make_user(role="support")
    user_id = player.user.pk
    other = make_user()
    account = player_account(user_id=user_id, currency="EUR")
    with pytest.raises(Forbidden):
        adjustment_create(staff_user=support, account_id=account.pk, amount=5, reason="x")
    with pytest.raises(Forbidden):
        correction_create(staff_user=support, from_user_id=user_id, to_user_id=other.pk,
                          amount=5, currency="EUR", reason="x", correction_id=uuid.uuid4())  # fmt: skip
    assert _lines() == []
    adjustment = adjustment_create(staff_user=finance, account_id=account.pk, amount=-25,
                                   reason="duplicate ticket")  # fmt: skip
    assert _lines() == [("adjustment.create", f"adjustment:{adjustment.pk}", user_id,
                         "duplicate ticket")]  # fmt: skip
    correction_id = uuid.uuid4()
    for _ in range(2):  # the retry moves nothing and logs nothing
        correction_create(staff_user=finance, from_user_id=user_id, to_user_id=other.pk,
                          amount=40, currency="EUR", reason="chargeback", correction_id=correction_id)  # fmt: skip
    assert _lines()[1:] == [
        ("correction.create", f"correction:{correction_id}", user_id, "chargeback")
    ]
    w = Withdrawal.objects.get(
        pk=post(player, "/api/v1/wallet/withdrawals/", {"amount": 100, "currency": "EUR"}).json()[
            "id"
        ]
    )
    withdrawal_reject(withdrawal_id=w.pk, staff_user=finance, reason="kyc")
    assert _lines()[2:] == [("withdrawal.reject", f"withdrawal:{w.pk}", user_id, "kyc")]
    assert all(a.actor == finance for a in StaffAction.objects.all())


def test_lifting_a_hold_needs_the_risk_role(make_user, player) -> None:
    held, _ = restriction_impose(user_id=player.user.pk, kind="fraud_freeze", source="t",
                                 reason="test", by=None)  # fmt: skip
    for refused in (make_user(role="support"), make_user(role="finance")):
        with pytest.raises(Forbidden):
            restriction_lift(restriction_id=held.pk, reason="appeal", by=refused)
    assert Restriction.objects.get(pk=held.pk).lifted_at is None
    restriction_lift(restriction_id=held.pk, reason="appeal", by=make_user(role="risk"))
    assert Restriction.objects.get(pk=held.pk).lifted_at is not None


def test_each_fraud_case_action_writes_one_line_and_a_refusal_none(make_user, open_case) -> None:
    case = open_case()
    players = sorted(case.players.values_list("pk", flat=True))
    risk, finance = make_user(role="risk"), make_user(role="finance")
    with pytest.raises(Forbidden):
        case_note(case_id=case.pk, text="x", by=finance)
    assert _lines() == []
    case_assign(case_id=case.pk, assignee_id=risk.pk, by=risk)
    case_review(case_id=case.pk, by=risk)
    case_note(case_id=case.pk, text="same IP", by=risk)
    case_confirm(case_id=case.pk, reason="dumping", freeze=True, by=risk)
    target = f"case:{case.pk}"
    assert _lines() == [("case.assign", target, None, ""), ("case.review", target, None, ""),
                        ("case.note", target, None, "same IP"),
                        ("case.confirm", target, None, "dumping"),
                        ("case.freeze", target, None, "dumping")]  # fmt: skip
    assert all(a.data["players"] == players and a.actor == risk for a in StaffAction.objects.all())
    other = open_case()
    case_dismiss(case_id=other.pk, reason="friends", by=risk)
    case_dismiss(case_id=other.pk, reason="friends", by=risk)  # already dismissed: nothing
    assert _lines()[5:] == [("case.dismiss", f"case:{other.pk}", None, "friends")]


@pytest.mark.django_db
def test_table_commands_need_the_table_permission_and_are_logged(make_user, table) -> None:
    t = table(name="Staffed")
    support, boss = make_user(role="support"), make_user(role="admin")
    with pytest.raises(Forbidden):
        table_pause(table_id=t.pk, actor=staff_actor(support.pk))
    assert _lines() == []
    players = [make_user(), make_user()]
    for u in players:
        fund(u, 50_000)
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    play_random_hands(t, players, 1, random.Random(3))
    table_pause(table_id=t.pk, actor=staff_actor(boss.pk))
    table_resume(table_id=t.pk, actor=staff_actor(boss.pk))
    table_close(table_id=t.pk, actor=staff_actor(boss.pk))
    assert [(a, tg) for a, tg, *_ in _lines()] == [
        ("table.pause", f"table:{t.pk}"), ("table.resume", f"table:{t.pk}"),
        ("table.close", f"table:{t.pk}")]  # fmt: skip
    assert Hand.objects.filter(table=t).exists()


def test_seed_demo_creates_one_staff_member_per_role_once(db, settings) -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("seed_demo", stdout=out)
    for role in ("support", "finance", "risk", "admin"):
        assert f"Demo staff created: {role}-staff (role {role}) / " in out.getvalue()
    again = StringIO()
    call_command("seed_demo", stdout=again)
    assert "Demo staff 'finance-staff' exists" in again.getvalue()
    finance = get_user_model().objects.get(username="finance-staff")
    assert finance.is_staff and not finance.is_superuser
    assert finance.has_perm("wallet.approve_withdrawal") and not finance.has_perm(
        "fraud.change_case"
    )
