"""The web table as `make run` serves it: two browsers on the embedded server (SQLite, the
in-memory channel layer, the embedded beat), logged in as demo players, play a hand.

``test_browser_table.py`` drives the same page on the PostgreSQL + Redis server; here the
server is started exactly as ``make run`` starts it (``tests/embedded/server.py``), with
the demo data ``seed_demo`` prints, and the truth comes from its REST API.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.embedded.server import Server, embedded_env, manage
from tests.support.browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    _failure_screenshots,
    _require_browser,
    _version,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("embedded_browser")]

TABLE = 1  # seed_demo's first table: "Demo Hold'em 50/100"


def _log_in(browser, base, username, password, errors):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda exc: errors.append(f"{username}: {exc}"))
    page.goto(f"{base}/login/?next=/tables/{TABLE}/")
    page.get_by_test_id("login-username").fill(username)
    page.get_by_test_id("login-password").fill(password)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(f"{base}/tables/{TABLE}/")
    return page


def _sit_down(page, expect):
    """Once the page's socket is open, buys in from the sit form."""
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")
    page.get_by_test_id("sit-buy-in").fill("5000")
    page.get_by_test_id("sit-submit").click()
    expect(page.get_by_test_id("sit-form")).to_be_hidden()


def test_demo_players_play_a_hand_in_the_browser_on_the_make_run_server(tmp_path, monkeypatch):
    sync_playwright = _require_browser()
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # playwright's loop; no ORM here
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    ARTIFACTS.mkdir(exist_ok=True)
    env = embedded_env(tmp_path)
    assert manage(env, "migrate", "--noinput").returncode == 0
    seed = manage(env, "seed_demo")
    assert seed.returncode == 0, seed.stderr
    passwords = dict(re.findall(r"Demo player created: (\w+) / (\S+)", seed.stdout))
    server = Server(env, tmp_path)
    errors: list[str] = []
    try:
        server.start()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            logins = [(n, passwords[n]) for n in ("alice", "bob")]
            pages = [_log_in(browser, server.base, n, pw_, errors) for n, pw_ in logins]
            try:
                for page in pages:
                    _sit_down(page, expect)
                # Two players: a hand runs, and each page shows its own two cards.
                for page in pages:
                    expect(page.get_by_test_id("table-root")).to_have_attribute(
                        "data-hand", re.compile(r"\d+")
                    )
                    expect(page.get_by_test_id("hole-cards")).to_have_attribute(
                        "data-cards", re.compile(r"^\w{4}$")
                    )
                first = pages[0].get_by_test_id("table-root").get_attribute("data-hand")
                # Play it out by clicking: whoever has the buttons checks, else calls. The
                # other page follows over the WebSocket of the in-memory channel layer.
                deadline = time.monotonic() + 120
                clicks = 0
                while pages[1].get_by_test_id("table-root").get_attribute("data-hand") == first:
                    assert time.monotonic() < deadline, "the hand did not finish"
                    for page in pages:
                        button = next(
                            (
                                page.get_by_test_id(f"action-{name}")
                                for name in ("check", "call")
                                if page.get_by_test_id(f"action-{name}").is_visible()
                            ),
                            None,
                        )
                        if button is not None:
                            before = _version(page)
                            button.click()
                            clicks += 1
                            expect(page.get_by_test_id("table-root")).not_to_have_attribute(
                                "data-version", str(before)
                            )
                            break
                    else:
                        time.sleep(0.1)
                assert clicks >= 7  # call + check preflop, then two checks on each street
                # The server agrees: the hand is in both players' histories, finished.
                token = server.token("alice", passwords["alice"])
                status, hands = server.call("GET", "/api/v1/hands/", token)
                assert status == 200, hands
                assert int(first) in [h["hand"] for h in hands["results"]]
                assert not errors, errors
            except BaseException:
                _failure_screenshots(pages)
                raise
            finally:
                browser.close()
    finally:
        server.stop()
    assert not [s for s in server.statuses if s >= 500], server.statuses
    assert not [line for line in server.log_lines() if '"level": "ERROR"' in line]
