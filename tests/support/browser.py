"""The browser tests' harness: a headless Debian Chromium driven by Playwright against a
live ``manage.py serve`` (screenshots of failures into ``test-artifacts/``)."""

import contextlib
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection, connections

from handhistory.models import Hand
from poker.engine.cards import format_cards
from poker.selectors import hand_detail
from tests.support.server import Server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "pw-Str0ng-enough!"  # make_user's default
BUY_IN = 10_000
TIMEOUT_MS = 30_000  # generous: the suite runs in parallel on busy machines


def _require_browser():
    """The browser test never skips: a missing browser is a failure that says how to fix it."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make test` (it installs it) or "
            "`sh scripts/ensure_browser.sh` (apt-get install -y chromium)."
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: `pip install -e '.[dev]'` (or `make test`).")
    return sync_playwright


def _truth(hand_id):
    """From the full event log: hole cards and shown cards by player id, the pot winners."""
    detail = hand_detail(hand_id=hand_id, viewer_id=None, full=True)
    hand = Hand.objects.get(pk=hand_id)
    user_at = dict(zip(hand.seat_numbers, hand.player_ids, strict=True))
    holes, shown, winners = {}, {}, []
    for event in detail["events"]:
        if event["type"] == "HoleCardsDealt":
            holes[user_at[event["seat"]]] = format_cards(event["cards"])
        elif event["type"] == "CardsShown":
            shown[user_at[event["seat"]]] = format_cards(event["cards"])
        elif event["type"] == "PotAwarded":
            for seat, amount in zip(event["winners"], event["amounts"], strict=True):
                winners.append((user_at[seat], amount))
    return holes, shown, winners


def _no_other_sessions(timeout=15.0):
    """Waits until the stopped server's database sessions are gone, so the test database
    can be flushed and dropped."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.2)


def _failure_screenshots(pages):
    """What each page showed when the test failed, next to the other artifacts."""
    for i, page in enumerate(pages):
        with contextlib.suppress(Exception):
            page.screenshot(path=str(ARTIFACTS / f"browser-failure-{i}.png"), full_page=True)


def drawn(page):
    """Returns once the page has drawn two frames since the call: whatever the last event
    (a resize, a timer fired by the fake clock) queued is laid out and painted. A wait on
    the page's state, not on the clock."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _version(page):
    return int(page.get_by_test_id("table-root").get_attribute("data-version"))


@contextlib.contextmanager
def browser_session(server, monkeypatch):
    """Starts ``server`` and a headless Chromium; yields (browser, pages): the pages the
    test opens go in ``pages`` and are screenshotted if it fails. Stops both after."""
    sync_playwright = _require_browser()
    from playwright.sync_api import expect

    # Playwright's sync API runs an event loop in this thread, so Django would refuse our
    # (plain, synchronous) ORM reads of the truth; nothing here is actually async.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    expect.set_options(timeout=TIMEOUT_MS)
    ARTIFACTS.mkdir(exist_ok=True)
    # Our own task queue: a concurrent test server's worker must not run our shot clock.
    server.env["CELERY_QUEUE"] = f"web-{uuid.uuid4().hex[:10]}"
    pages = []
    try:
        server.start()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            try:
                yield browser, pages
            except BaseException:
                _failure_screenshots(pages)
                raise
            finally:
                browser.close()
                # ORM calls made while Playwright's loop runs may have used a connection of
                # their own (a context-local one): close it, or the test database stays busy.
                connections.close_all()
    finally:
        server.stop()
        _no_other_sessions()


DESKTOP = {"width": 1440, "height": 960}


def _log_in_and_open(browser, base, user, table_id, errors, prepare=None, viewport=DESKTOP):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    if prepare is not None:
        prepare(page)
    page.on("pageerror", lambda exc: errors.append(f"{user.username}: {exc}"))
    page.goto(f"{base}/login/?next=/tables/{table_id}/")
    page.get_by_test_id("login-username").fill(user.username)
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(f"{base}/tables/{table_id}/")
    return page


# --- Content-Security-Policy watching (the CSP test and the pages' browser tests) ---

# Runs before any page script: records every violation the page reports.
_LISTEN = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`);
});
"""


def _watch(page, violations, policies):
    page.add_init_script(_LISTEN)
    page.on(
        "console",
        lambda msg: (
            violations.append(f"console: {msg.text}")
            if "Content Security Policy" in msg.text or "Content-Security-Policy" in msg.text
            else None
        ),
    )

    def on_response(response):
        if response.request.resource_type == "document":
            policies[response.url] = response.headers.get("content-security-policy")

    page.on("response", on_response)


def _collect(page, violations):
    violations.extend(page.evaluate("window.__csp || []"))


def _production_server():
    server = Server()
    server.env.update(
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        SECURE_COOKIES="0",
    )
    return server
