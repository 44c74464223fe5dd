"""The export button of "My hands" in headless Chromium: a job of the filtered hands is
started, its progress bar fills while the server works, and its download link gives the
file. Needs the export jobs API (/api/v1/exports/, branch h-jobs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from poker.commands.seating import table_sit
from tests.poker import conftest as poker_fixtures
from tests.support.browser import DESKTOP, PASSWORD, TIMEOUT_MS, browser_session
from tests.support.poker import actor_for, key, play_random_hands
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table


class Fold:
    """Folds (checks when free): many short hands."""

    def choice(self, options):
        return "check" if "check" in options else "fold"


def test_the_export_button_shows_progress_then_a_download_of_the_filtered_hands(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    played, other = table(name="Exported"), table(name="Not exported")
    alice, bob = player(username="alice"), player(username="bob")
    for t in (played, other):
        for u in (alice, bob):
            table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
        play_random_hands(t, [alice, bob], 6, Fold())

    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = browser.new_context(viewport=DESKTOP, accept_downloads=True).new_page()
        pages.append(page)
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/login/?next=/hands/%3Ftable%3D{played.pk}")
        page.get_by_test_id("login-username").fill("alice")
        page.get_by_test_id("login-password").fill(PASSWORD)
        page.get_by_test_id("login-submit").click()
        page.wait_for_url(f"{base}/hands/?table={played.pk}")

        page.get_by_test_id("export-format").select_option("phh")
        page.get_by_test_id("export-submit").click()
        job = page.get_by_test_id("export-job")
        expect(job).to_be_visible()
        expect(job).to_have_attribute("data-status", "succeeded", timeout=60_000)
        progress = page.get_by_test_id("export-progress")
        assert progress.evaluate("(p) => p.value === p.max")
        expect(page.get_by_test_id("export-count")).to_contain_text("hands")
        link = page.get_by_test_id("export-download")
        expect(link).to_be_visible()
        with page.expect_download() as download:
            link.click()
        text = Path(download.value.path()).read_text(encoding="utf-8")
        assert 'table = "Exported"' in text and "Not exported" not in text
        # The job is in the recent exports list.
        expect(page.get_by_test_id("export-list").locator("li").first).to_contain_text("phh")
    assert errors == [], errors
