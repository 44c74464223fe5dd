"""The every-card rule (``poker.full_view``): nobody who may see every card of a table holds
a seat at it. The tour's scenario on every channel (the page, the hand API, the deal
proof, the single-hand export, export jobs, the staff hand page), the live view for risk
and admin only, the delay, and the seat block that expires."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from handhistory.models import Event, ExportJob, Hand
from ledger.models import Transfer
from poker.models import FullView, Seat, TableCommand
from staff.models import StaffAction
from tests.support.poker import fund
from tests.support.tables_api import fold_hand, post, sit, state, tables_url

pytestmark = pytest.mark.django_db


def written() -> tuple[int, ...]:
    """Everything a refused sit or view could have written."""
    return (
        Event.objects.count(),
        Transfer.objects.count(),
        TableCommand.objects.count(),
        Seat.objects.count(),
        FullView.objects.count(),
        StaffAction.objects.count(),
        ExportJob.objects.count(),
    )


@pytest.fixture
def room(table, auth_client, make_user):
    """A table where two players play a running hand after a finished one."""
    t = table(name="Tour")
    players = [auth_client(make_user()) for _ in range(2)]
    for client in players:
        fund(client.user, 100_000)
        sit(client, t.pk, buy_in=5_000)
    finished = fold_hand(players, t.pk)
    assert state(players[0], t.pk)["hand"] is not None
    return t, players, finished


@pytest.fixture
def staff(client, auth_client, make_user):
    """A funded staff member of a role: (user, page client by session, API client by token)."""

    def make(role):
        user = make_user(role=role)
        fund(user, 100_000)
        client.force_login(user)
        return user, client, auth_client(user)

    return make


def refused(response, status, code):
    body = response.json() if response["Content-Type"].startswith("application/json") else None
    assert response.status_code == status, response.content[:300]
    if body is not None:
        assert body["code"] == code, body
    else:
        assert f'data-code="{code}"' in response.content.decode()


def test_staff_member_watching_every_card_cannot_sit_at_that_table(room, staff):
    t, _, _ = room
    _, page, api = staff("admin")
    watched = page.get(f"/tables/{t.pk}/?full=1")
    assert watched.status_code == 200
    assert 'data-testid="staff-view-banner"' in watched.content.decode()
    before = written()
    balance = api.get("/api/v1/wallet/").json()

    response = post(api, tables_url(t.pk, "sit"), {"buy_in": 5_000})

    refused(response, 403, "watched_with_every_card")
    assert response.json()["extra"]["table"] == t.pk
    assert written() == before
    assert api.get("/api/v1/wallet/").json() == balance
    # Another table stays open to them.
    other = t.__class__.objects.create(
        name="Other", small_blind=50, big_blind=100, min_buy_in=2_000, max_buy_in=20_000
    )
    assert post(api, tables_url(other.pk, "sit"), {"buy_in": 5_000}).status_code == 200


def test_a_seated_staff_member_never_gets_every_card_of_their_table_on_any_channel(room, staff):
    t, _, finished = room
    admin, page, api = staff("admin")
    sit(api, t.pk, buy_in=5_000)  # waits for the big blind: the next hand deals them in
    running = Hand.objects.get(table=t, ended_at__isnull=True).pk
    before = written()

    refused(page.get(f"/tables/{t.pk}/?full=1"), 403, "full_view_while_seated")
    for hand_id in (running, finished):
        refused(api.get(f"/api/v1/hands/{hand_id}/?full=1"), 403, "full_view_while_seated")
    refused(api.get(f"/api/v1/hands/{finished}/fairness/?full=1"), 403, "full_view_while_seated")
    for fmt in ("phh", "pokerstars", "ohh"):
        export = api.get(f"/api/v1/hands/{finished}/?format={fmt}&full=1")
        refused(export, 403, "full_view_while_seated")
    job = post(api, "/api/v1/exports/", {"format": "phh", "tables": [t.pk]})
    refused(job, 403, "full_view_while_seated")
    # No table named: the whole room, this table included.
    refused(post(api, "/api/v1/exports/", {"format": "phh"}), 403, "full_view_while_seated")
    refused(page.get(f"/staff/hands/{finished}/"), 403, "full_view_while_seated")
    # The admin's pages of a hand and of its events hold every card too.
    dealt = Event.objects.filter(stream=f"hand-{finished}", type="HoleCardsDealt").first()
    for url in (f"/admin/handhistory/hand/{finished}/change/",
                f"/admin/handhistory/event/{dealt.pk}/change/"):  # fmt: skip
        assert page.get(url).status_code == 403, url
    assert written() == before
    # The dashboard links neither the live view nor a hand of the table they sit at.
    row = next(r for r in page.get("/staff/dashboard.json").json()["tables"] if r["id"] == t.pk)
    assert (row["watch_url"], row["hand_url"]) == (None, None)
    # Their own view of the table is a player's: their cards only.
    dealt = state(api, t.pk)
    assert all(s.get("cards") is None for s in dealt["seats"] if s["user_id"] != admin.pk)


def test_a_superuser_seated_at_a_table_is_refused_its_every_card_view(
    room, client, auth_client, make_user
):
    t, _, finished = room
    boss = make_user()
    boss.is_superuser = boss.is_staff = True
    boss.save()
    fund(boss, 100_000)
    client.force_login(boss)
    page, api = client, auth_client(boss)
    sit(api, t.pk, buy_in=5_000)
    refused(page.get(f"/tables/{t.pk}/?full=1"), 403, "full_view_while_seated")
    refused(api.get(f"/api/v1/hands/{finished}/?full=1"), 403, "full_view_while_seated")


def test_an_every_card_export_of_a_tables_hand_bars_a_seat_there(room, staff):
    t, _, finished = room
    _, _, api = staff("support")
    assert api.get(f"/api/v1/hands/{finished}/?format=phh&full=1").status_code == 200
    refused(post(api, tables_url(t.pk, "sit"), {"buy_in": 5_000}), 403, "watched_with_every_card")


def test_an_export_job_with_every_card_bars_a_seat_at_the_tables_it_holds(room, staff):
    t, _, _ = room
    support, _, api = staff("support")
    assert post(api, "/api/v1/exports/", {"format": "phh"}).status_code == 202
    assert ExportJob.objects.get(requester=support).full
    refused(post(api, tables_url(t.pk, "sit"), {"buy_in": 5_000}), 403, "watched_with_every_card")


def test_support_is_refused_the_live_view_and_sees_finished_hands_only(room, staff):
    t, _, finished = room
    _, page, api = staff("support")
    before = written()
    refused(page.get(f"/tables/{t.pk}/?full=1"), 403, "permission_denied")
    running = Hand.objects.get(table=t, ended_at__isnull=True).pk
    refused(api.get(f"/api/v1/hands/{running}/?full=1"), 409, "full_view_delayed")
    refused(page.get(f"/staff/hands/{running}/"), 409, "full_view_delayed")
    assert written() == before
    full = api.get(f"/api/v1/hands/{finished}/?full=1").json()
    assert all(e["cards"] for e in full["events"] if e["type"] == "HoleCardsDealt")
    assert page.get(f"/staff/hands/{finished}/").status_code == 200
    row = next(r for r in page.get("/staff/dashboard.json").json()["tables"] if r["id"] == t.pk)
    assert row["watch_url"] is None and row["hand_url"] == f"/staff/hands/{finished}/"


@pytest.mark.parametrize("role", ["risk", "admin"])
def test_risk_and_admin_watch_live_a_hand_behind_never_the_running_hand(room, staff, role):
    t, players, finished = room
    _, page, api = staff(role)
    watched = page.get(f"/tables/{t.pk}/?full=1")
    assert watched.status_code == 200 and watched.context["config"]["full"] is True
    assert "Staff view" in watched.content.decode()
    # The page embeds a spectator's view: no hole card of the hand being played.
    assert watched.context["view"]["you"] is None
    assert all(s.get("cards") is None for s in watched.context["view"]["seats"])
    running = Hand.objects.get(table=t, ended_at__isnull=True).pk
    refused(api.get(f"/api/v1/hands/{running}/?full=1"), 409, "full_view_delayed")
    refused(api.get(f"/api/v1/hands/{running}/?format=phh&full=1"), 409, "full_view_delayed")
    assert api.get(f"/api/v1/hands/{finished}/?full=1").status_code == 200
    # Once the running hand has ended, it is the one behind: shown.
    fold_hand(players, t.pk)
    assert api.get(f"/api/v1/hands/{running}/?full=1").status_code == 200
    row = next(r for r in page.get("/staff/dashboard.json").json()["tables"] if r["id"] == t.pk)
    assert row["watch_url"] == f"/tables/{t.pk}/?full=1"
    assert row["hand_url"] == f"/staff/hands/{running}/"


def test_the_delay_counts_hand_ends_as_configured(room, auth_client, make_user, settings):
    settings.STAFF_FULL_VIEW_DELAY_HANDS = 2
    t, players, finished = room
    api = auth_client(make_user(role="risk"))
    running = Hand.objects.get(table=t, ended_at__isnull=True).pk
    # One hand end since the finished hand was dealt (its own): not yet.
    before = written()
    refused(api.get(f"/api/v1/hands/{finished}/?full=1"), 409, "full_view_delayed")
    refused(api.get(f"/api/v1/hands/{finished}/fairness/?full=1"), 409, "full_view_delayed")
    refused(post(api, "/api/v1/exports/", {"format": "phh"}), 409, "full_view_delayed")
    assert written() == before
    fold_hand(players, t.pk)
    assert api.get(f"/api/v1/hands/{finished}/?full=1").status_code == 200
    refused(api.get(f"/api/v1/hands/{running}/?full=1"), 409, "full_view_delayed")


def test_the_seat_block_ends_after_the_configured_hours(room, staff, settings):
    settings.STAFF_FULL_VIEW_SEAT_BLOCK_HOURS = 3
    t, _, _ = room
    admin, page, api = staff("admin")
    assert page.get(f"/tables/{t.pk}/?full=1").status_code == 200
    (watch,) = FullView.objects.filter(staff=admin, table=t)
    # The watch is moved back in time (a test cannot wait hours).
    FullView.objects.filter(pk=watch.pk).update(at=timezone.now() - timedelta(hours=2))
    refused(post(api, tables_url(t.pk, "sit"), {"buy_in": 5_000}), 403, "watched_with_every_card")
    FullView.objects.filter(pk=watch.pk).update(at=timezone.now() - timedelta(hours=3, minutes=1))
    assert post(api, tables_url(t.pk, "sit"), {"buy_in": 5_000}).status_code == 200


def test_a_registered_involvement_refuses_the_every_card_view(
    room, auth_client, make_user, monkeypatch
):
    # How a tournament app plugs in: its entrants are involved at its tables.
    from poker import full_view

    t, _, finished = room
    entrant = make_user(role="admin")
    checks = [*full_view.INVOLVEMENT_CHECKS]
    monkeypatch.setattr(full_view, "INVOLVEMENT_CHECKS", checks)
    full_view.involvement_register(
        lambda user_id, table_ids: (
            {t.pk: "registered in its tournament"}
            if user_id == entrant.pk and t.pk in table_ids
            else {}
        )
    )
    response = auth_client(entrant).get(f"/api/v1/hands/{finished}/?full=1")
    refused(response, 403, "full_view_while_seated")
    assert "registered in its tournament" in response.json()["message"]
