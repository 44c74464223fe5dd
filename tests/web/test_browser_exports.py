"""Issue 15's export button proven in headless Chromium, against a live ``manage.py serve``
(a real Celery worker on Redis runs the jobs): a player lists the hands they won, exports
them in each format in turn, watches the job's status and progress bar reach the end,
downloads the file and finds exactly the listed hands in it, in that format, with their own
hole cards and no card another player kept hidden. A refused export (over the quota) shows
its typed error in the panel and creates no job."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from handhistory.exports.pokerstars import SEPARATOR
from handhistory.exports.records import hand_records
from handhistory.models import ExportJob, PlayerHandResult
from poker.commands.seating import table_sit
from poker.selectors import hand_detail
from tests.poker import conftest as poker_fixtures
from tests.support.browser import DESKTOP, PASSWORD, TIMEOUT_MS, browser_session
from tests.support.exports import secrets_of, visible_cards
from tests.support.poker import actor_for, hole_cards_by_user, key, play_random_hands
from tests.support.server import Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

player = poker_fixtures.player
table = poker_fixtures.table

#: A job of a handful of hands is done in seconds; a loaded two-core machine gets a margin.
JOB_TIMEOUT_MS = 90_000

#: Records every state the export panel shows a job in, as the page sets it (a microtask
#: after each change, so the progress bar already holds that state's values).
_WATCH_JOB = """
() => {
  window.__jobStates = [];
  const box = document.querySelector('[data-testid="export-job"]');
  const bar = document.querySelector('[data-testid="export-progress"]');
  new MutationObserver(() => {
    window.__jobStates.push({
      job: box.getAttribute("data-job"), status: box.getAttribute("data-status"),
      value: bar.value, max: bar.max,
    });
  }).observe(box, { attributes: true, attributeFilter: ["data-status", "data-job"] });
}
"""


class Fold:
    """Folds (checks when free): three-handed, the big blind wins each hand uncontested."""

    def choice(self, options):
        return "check" if "check" in options else "fold"


class CheckCall:
    """Checks when it may, else calls: every hand goes to a showdown."""

    def choice(self, options):
        return "check" if "check" in options else "call"


def _hands_in(fmt: str, text: str) -> dict[int, str]:
    """The downloaded file cut into its hands' texts, by hand id, read as each format is
    written (PHH: TOML tables ``[1]``, ``[2]``...; PokerStars: hands three blank lines
    apart; OHH: one JSON object per hand, a blank line between)."""
    hands: dict[int, str] = {}
    if fmt == "phh":
        document = tomllib.loads(text)
        assert list(document) == [str(k) for k in range(1, len(document) + 1)]
        for part in re.split(r"^\[\d+\]\n", text, flags=re.MULTILINE)[1:]:
            fields = tomllib.loads(part)
            assert {"variant", "actions", "players", "finishing_stacks"} <= set(fields)
            hands[fields["hand"]] = part
    elif fmt == "pokerstars":
        for part in filter(None, (p.strip("\n") for p in text.split(SEPARATOR))):
            header = re.match(r"PokerStars Hand #(\d+): ", part)
            assert header, part
            assert "*** HOLE CARDS ***" in part and "*** SUMMARY ***" in part, part
            hands[int(header.group(1))] = part
    else:
        for part in filter(None, (p.strip() for p in text.split("\n\n"))):
            ohh = json.loads(part)["ohh"]
            assert ohh["spec_version"].startswith("1.4"), ohh
            hands[int(ohh["game_number"])] = part
    return hands


def _assert_private(fmt: str, hands: dict[int, str], me: int) -> int:
    """Each hand holds the viewer's own hole cards and the cards shown, and no card of a
    player who did not show, nor the deck seed when one did not; checked against the events
    with every card. Returns how many hands had a player's cards hidden."""
    hidden_hands = 0
    records = {r.hand_id: r for r in hand_records(list(hands))}
    for hand_id, text in hands.items():
        events = hand_detail(hand_id=hand_id, viewer_id=None, full=True)["events"]
        hole, shown = hole_cards_by_user(hand_id, events)
        seen = visible_cards(fmt, text)
        assert hole[me] <= seen, text
        for other, cards in hole.items():
            if other == me:
                continue
            if other in shown:
                assert cards <= seen, text
            else:
                assert not cards & seen, text
        if set(hole) - shown - {me}:
            hidden_hands += 1
            assert not any(s in text for s in secrets_of(records[hand_id])), text
    return hidden_hands


def _alices_page(browser, pages, errors, base, path):
    """A page (downloads allowed) logged in as alice and opened at ``path``; its script
    errors go in ``errors``."""
    page = browser.new_context(viewport=DESKTOP, accept_downloads=True).new_page()
    pages.append(page)
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/login/?next={path.replace('?', '%3F').replace('&', '%26')}")
    page.get_by_test_id("login-username").fill("alice")
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(f"{base}{path}")
    return page


def test_my_hands_exports_the_listed_won_hands_in_each_format_with_progress_and_download(
    table, player, monkeypatch
):
    from playwright.sync_api import expect

    t = table(name="Exports", action_seconds=600)
    alice, bob, carol = (player(username=n) for n in ("alice", "bob", "carol"))
    for u in (alice, bob, carol):
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    play_random_hands(t, [alice, bob, carol], 6, Fold())  # alice wins 2, loses 2
    play_random_hands(t, [alice, bob, carol], 3, CheckCall())  # showdowns
    results = PlayerHandResult.objects.filter(player=alice)
    won = set(results.filter(net__gt=0).values_list("hand_id", flat=True))
    assert won and results.filter(net__lt=0).exists()
    days = sorted(results.values_list("ended_at", flat=True))
    path = (
        f"/hands/?result=won&since={days[0].date().isoformat()}&until={days[-1].date().isoformat()}"
    )

    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors: list[str] = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = _alices_page(browser, pages, errors, base, path)

        rows = page.get_by_test_id("hands-table").locator("tbody tr")
        expect(rows).to_have_count(len(won))
        listed = {int(h) for h in rows.evaluate_all("(rs) => rs.map((r) => r.dataset.hand)")}
        assert listed == won
        # The panel says what it exports: what the list shows, its result filter included.
        hint = page.get_by_test_id("export-form").locator(".hint")
        expect(hint).to_contain_text("result")
        expect(hint).not_to_contain_text("not filtered")
        page.evaluate(_WATCH_JOB)

        box = page.get_by_test_id("export-job")
        hidden_hands = 0
        for fmt, extension in (("phh", ".phhs"), ("pokerstars", ".txt"), ("ohh", ".ohh")):
            page.get_by_test_id("export-format").select_option(fmt)
            with page.expect_response(
                lambda r: r.url.endswith("/api/v1/exports/") and r.request.method == "POST"
            ) as posted:
                page.get_by_test_id("export-submit").click()
            assert posted.value.status == 202, posted.value.text()
            job_id = str(posted.value.json()["id"])
            expect(box).to_have_attribute("data-job", job_id)
            expect(box).to_have_attribute("data-status", "succeeded", timeout=JOB_TIMEOUT_MS)

            states = [s for s in page.evaluate("window.__jobStates") if s["job"] == job_id]
            statuses = [s["status"] for s in states]
            assert statuses[0] in ("queued", "running") and statuses[-1] == "succeeded", states
            assert set(statuses) <= {"queued", "running", "succeeded"}, states
            order = ["queued", "running", "succeeded"]
            assert [order.index(s) for s in statuses] == sorted(order.index(s) for s in statuses)
            values = [s["value"] for s in states]
            assert values == sorted(values) and values[-1] == states[-1]["max"] == len(won)
            expect(page.get_by_test_id("export-status")).to_have_text("Ready")
            expect(page.get_by_test_id("export-count")).to_have_text(
                f"{len(won)} / {len(won)} hands"
            )
            expect(page.get_by_test_id("export-error")).to_be_hidden()

            link = page.get_by_test_id("export-download")
            expect(link).to_be_visible()
            with page.expect_download() as download:
                link.click()
            assert download.value.suggested_filename.endswith(extension)
            text = Path(download.value.path()).read_text(encoding="utf-8")
            hands = _hands_in(fmt, text)
            assert set(hands) == won, (fmt, sorted(hands), sorted(won))
            hidden_hands += _assert_private(fmt, hands, alice.pk)

            job = ExportJob.objects.get(pk=job_id)
            assert (job.requester_id, job.format, job.full) == (alice.pk, fmt, False)
            assert job.filters["result"] == "won"
            recent = page.get_by_test_id("export-list").locator(f'li[data-job="{job_id}"]')
            expect(recent).to_contain_text(fmt)
            expect(recent).to_have_attribute("data-status", "succeeded")
        # The won hands folded to alice hid both opponents' cards: privacy was put to work.
        assert hidden_hands >= 3 * 2
    assert errors == [], errors


def test_an_export_over_the_quota_shows_its_typed_error_in_the_panel_and_creates_no_job(
    table, player, monkeypatch, settings
):
    from playwright.sync_api import expect

    t = table(name="Quota", action_seconds=600)
    alice, bob = player(username="alice"), player(username="bob")
    for u in (alice, bob):
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    play_random_hands(t, [alice, bob], 2, Fold())
    # Alice's quota is full: jobs still queued (no worker is told of these rows).
    for _ in range(settings.EXPORT_MAX_ACTIVE_JOBS):
        ExportJob.objects.create(requester=alice, format="phh", filters={"tables": []})
    jobs = set(ExportJob.objects.values_list("pk", flat=True))

    server = Server()
    base = f"http://127.0.0.1:{server.port}"
    errors: list[str] = []
    with browser_session(server, monkeypatch) as (browser, pages):
        page = _alices_page(browser, pages, errors, base, "/hands/?result=won")

        page.get_by_test_id("export-format").select_option("ohh")
        with page.expect_response(
            lambda r: r.url.endswith("/api/v1/exports/") and r.request.method == "POST"
        ) as posted:
            page.get_by_test_id("export-submit").click()
        assert posted.value.status == 429
        refusal = posted.value.json()
        assert refusal["code"] == "too_many_exports"
        error = page.get_by_test_id("export-error")
        expect(error).to_be_visible()
        expect(error).to_have_text(refusal["message"])
        expect(error).to_have_attribute("data-code", "too_many_exports")
        expect(page.get_by_test_id("export-job")).to_be_hidden()
        expect(page.get_by_test_id("export-submit")).to_be_enabled()
    assert set(ExportJob.objects.values_list("pk", flat=True)) == jobs
    assert errors == [], errors
