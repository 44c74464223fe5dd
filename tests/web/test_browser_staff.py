"""A finance staff member in headless Chromium, on a production-mode server (two factors
on by default): signs in with a password, is sent to enrol an authenticator, types the
code computed from the secret the page shows, approves a withdrawal on its review page
(from the admin's list) with a reason and reads the staff log's line about it, in the admin and on the player's profile. Screenshots in test-artifacts/."""

from __future__ import annotations

import base64
import uuid

import pytest
from django_otp.oath import totp

from staff.models import StaffAction
from tests.support.browser import (
    ARTIFACTS,
    DESKTOP,
    PASSWORD,
    TIMEOUT_MS,
    _collect,
    _production_server,
    _watch,
    browser_session,
)
from tests.support.poker import fund
from wallet.models import Withdrawal
from wallet.services import withdrawal_request

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_staff_sign_in_with_two_factors_approve_a_withdrawal_and_read_the_staff_log(
    make_user, monkeypatch
):
    from playwright.sync_api import expect

    finance = make_user(username="fiona", role="finance")
    player = make_user(username="pat")
    fund(player, 50_00, currency="EUR")
    withdrawal = withdrawal_request(user=player, withdrawal_id=uuid.uuid4(), amount=12_00,
                                    currency="EUR")  # fmt: skip
    server = _production_server()
    server.env.pop("STAFF_2FA_REQUIRED", None)  # production's default: on
    base = f"http://127.0.0.1:{server.port}"
    errors: list[str] = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP).new_page()
        pages.append(page)
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        violations: list[str] = []
        policies: dict[str, str | None] = {}
        _watch(page, violations, policies)

        page.goto(f"{base}/admin/login/?next=/admin/wallet/withdrawal/")
        page.fill("#id_username", "fiona")
        page.fill("#id_password", PASSWORD)
        page.click("input[type=submit]")
        # The password alone leads to enrolment, not to the admin.
        page.wait_for_url(f"{base}/staff/2fa/setup/?next=/admin/wallet/withdrawal/")
        expect(page.get_by_test_id("otp-qr").locator("svg")).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "staff-2fa-setup.png"), full_page=True)
        _collect(page, violations)
        secret = page.get_by_test_id("otp-secret").inner_text().strip()
        code = totp(base64.b32decode(secret))
        page.get_by_test_id("otp-token").fill(f"{code:06d}")
        page.get_by_test_id("otp-submit").click()
        # The recovery codes, shown once, then on to where the member was going.
        expect(page.get_by_test_id("otp-recovery-code")).to_have_count(10)
        page.screenshot(path=str(ARTIFACTS / "staff-2fa-recovery-codes.png"), full_page=True)
        _collect(page, violations)
        page.get_by_test_id("otp-continue").click()
        page.wait_for_url(f"{base}/admin/wallet/withdrawal/")

        # The admin decides nothing in bulk: its list links each withdrawal's review page.
        expect(page.locator("select[name=action] option[value=approve_withdrawals]")).to_have_count(
            0
        )
        page.locator(f"a[href='/staff/withdrawals/{withdrawal.pk}/']").click()
        page.wait_for_url(f"{base}/staff/withdrawals/{withdrawal.pk}/")
        expect(page.get_by_test_id("review-amount")).to_have_text("€12.00")
        expect(page.get_by_test_id("review-kyc")).to_have_text("unverified")
        expect(page.get_by_test_id("review-balance-EUR")).to_contain_text("€50.00")
        page.screenshot(path=str(ARTIFACTS / "staff-withdrawal-review.png"), full_page=True)
        page.get_by_test_id("decision-approve").click()  # no reason: the browser asks for one
        expect(page.get_by_test_id("review-status")).to_have_attribute("data-status", "pending")
        page.get_by_test_id("decision-reason").fill("identity and history checked")
        page.get_by_test_id("decision-approve").click()
        expect(page.get_by_test_id("messages")).to_contain_text("Withdrawal approved (paid out).")
        expect(page.get_by_test_id("review-status")).to_have_attribute("data-status", "approved")
        expect(page.get_by_test_id("review-log-row")).to_contain_text("withdrawal.approve")
        page.screenshot(path=str(ARTIFACTS / "staff-withdrawal-approved.png"), full_page=True)
        _collect(page, violations)

        page.goto(f"{base}/admin/staff/staffaction/")
        row = page.locator("#result_list tbody tr").first
        expect(row).to_contain_text("withdrawal.approve")
        expect(row).to_contain_text(f"withdrawal:{withdrawal.pk}")
        expect(row).to_contain_text("fiona")
        page.screenshot(path=str(ARTIFACTS / "staff-log.png"), full_page=True)

        # The player's profile, found from the reports page, shows the same line.
        page.goto(f"{base}/staff/reports/?q=pat")
        page.get_by_test_id(f"player-link-{player.pk}").click()
        page.wait_for_url(f"{base}/staff/players/{player.pk}/")
        expect(page.get_by_test_id("staff-log-row").first).to_contain_text("withdrawal.approve")
        expect(page.get_by_test_id("balance-EUR")).to_contain_text("€38.00")
        page.screenshot(path=str(ARTIFACTS / "staff-player-profile.png"), full_page=True)
        _collect(page, violations)

        assert policies[f"{base}/staff/2fa/setup/?next=/admin/wallet/withdrawal/"]
        assert violations == [], violations
    assert errors == [], errors
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == "approved"
    line = StaffAction.objects.get(action="withdrawal.approve")
    assert (line.actor_id, line.subject_id, line.reason) == (
        finance.pk, player.pk, "identity and history checked",
    )  # fmt: skip


def test_staff_replay_a_hand_with_every_card_and_read_the_rake_report(make_user, monkeypatch):
    import random

    from playwright.sync_api import expect

    from handhistory.models import HandSummary
    from poker.commands.seating import table_create, table_sit
    from tests.support.poker import actor_for, key, play_random_hands

    t = table_create(name="Raked", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
                     max_buy_in=20_000, max_seats=6, rake_bps=500, rake_cap=300)  # fmt: skip
    users = [make_user(username="ann"), make_user(username="bo")]
    for u in users:
        fund(u, 20_000)
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    rng = random.Random(5)
    for _ in range(30):  # until a hand is raked (one folded before the flop may not be)
        play_random_hands(t, users, 1, rng)
        if HandSummary.objects.filter(table=t, rake__gt=0).exists():
            break
    summary = HandSummary.objects.filter(table=t, rake__gt=0).order_by("hand_id").first()
    make_user(username="sue", role="support")
    server = _production_server()
    server.env["STAFF_2FA_REQUIRED"] = "0"  # the two factors are the other test's subject
    base = f"http://127.0.0.1:{server.port}"
    errors: list[str] = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP).new_page()
        pages.append(page)
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        violations: list[str] = []
        policies: dict[str, str | None] = {}
        _watch(page, violations, policies)
        page.goto(f"{base}/admin/login/?next=/staff/hands/{summary.hand_id}/")
        page.fill("#id_username", "sue")
        page.fill("#id_password", PASSWORD)
        page.click("input[type=submit]")
        page.wait_for_url(f"{base}/staff/hands/{summary.hand_id}/")
        expect(page.get_by_test_id("full-view")).to_be_visible()
        page.get_by_test_id("step-last").click()
        for p in summary.players:
            expect(page.get_by_test_id(f"seat-{p['seat']}-cards")).not_to_have_attribute(
                "data-cards", ""
            )
        expect(page.get_by_test_id("deal-verdict")).to_contain_text("Verified")
        expect(page.get_by_test_id("hand-transfer").first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "staff-hand-view.png"), full_page=True)
        _collect(page, violations)

        page.goto(f"{base}/staff/reports/rake/table/")
        expect(page.get_by_test_id("rake-row")).to_have_count(1)
        page.screenshot(path=str(ARTIFACTS / "staff-rake-report.png"), full_page=True)
        _collect(page, violations)
        assert violations == [], violations
    assert errors == [], errors
    assert StaffAction.objects.filter(action="hand.view_full").count() == 1
