"""Bad input gets a typed 4xx error with a stable code and leaves no trace: after every
refusal, the number of events, ledger transfers and stored commands is unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from handhistory.models import Event
from ledger.models import Transfer
from poker.models import TableCommand
from tests.support.tables_api import act, actor_client, post, sit, state, tables_url

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, int]:
    return Event.objects.count(), Transfer.objects.count(), TableCommand.objects.count()


@pytest.fixture
def unchanged() -> Iterator[Any]:
    """``unchanged(response, status, code)`` asserts the refusal and that nothing was written."""
    baseline: list[tuple[int, int, int]] = [_counts()]

    def check(response: Any, status: int, code: str | tuple[str, ...]) -> dict[str, Any]:
        body = response.json()
        assert response.status_code == status, body
        assert set(body) == {"code", "message", "extra"}
        assert body["code"] in ((code,) if isinstance(code, str) else code), body
        assert _counts() == baseline[0], body
        return body

    def rebase() -> None:
        baseline[0] = _counts()

    check.rebase = rebase  # type: ignore[attr-defined]
    yield check


@pytest.fixture
def game(auth_client, table, player, unchanged) -> dict[str, Any]:
    """Three seated players at a running hand, and one funded player who is not seated."""
    t = table()
    clients = [auth_client(player()) for _ in range(3)]
    for c in clients[:2]:
        sit(c, t.pk)
    view = state(clients[0], t.pk)
    outsider = clients[2]
    unchanged.rebase()
    return {"table": t, "players": clients[:2], "outsider": outsider, "view": view}


def test_acting_out_of_turn(game, unchanged):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    waiting = players[1] if actor is players[0] else players[0]
    body = unchanged(act(waiting, t.pk, "fold"), 422, "not_your_turn")
    assert "turn" in body["message"]


def test_acting_at_a_table_you_are_not_at(game, unchanged):
    unchanged(act(game["outsider"], game["table"].pk, "fold"), 403, "not_seated")


def test_illegal_amounts(game, unchanged):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    legal = state(actor, t.pk)["you"]["legal_actions"]
    body = unchanged(act(actor, t.pk, "raise", legal["min_to"] - 1), 422, "raise_too_small")
    assert body["extra"]["min"] == legal["min_to"]
    unchanged(act(actor, t.pk, "raise", legal["max_to"] + 1), 422, "raise_too_large")
    unchanged(act(actor, t.pk, "bet", legal["min_to"]), 422, "cannot_bet")
    unchanged(act(actor, t.pk, "check"), 422, "cannot_check")
    unchanged(act(actor, t.pk, "call", 12345), 422, "invalid_amount")
    unchanged(act(actor, t.pk, "fold", 10), 422, "invalid_amount")
    unchanged(act(actor, t.pk, "raise"), 422, "invalid_amount")


@pytest.mark.parametrize(
    "amount",
    ["400", 400.0, 400.5, True, -400, 2**63, 2**64, None, [400], {"to": 400}],
    ids=[
        "string",
        "float",
        "fraction",
        "bool",
        "negative",
        "2**63",
        "2**64",
        "null",
        "list",
        "object",
    ],
)
def test_amounts_must_be_real_non_negative_json_integers(game, unchanged, amount):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    response = post(actor, tables_url(t.pk, "actions"), {"action": "raise", "amount": amount})
    if amount is None:  # an explicit null is "no amount": the engine says a raise needs one
        unchanged(response, 422, "invalid_amount")
        return
    body = unchanged(response, 400, "invalid")
    assert "amount" in body["extra"]["fields"]


@pytest.mark.parametrize(
    "body",
    [
        {"action": "shove"},
        {"action": "FOLD"},
        {"action": 1},
        {},
        {"action": "fold", "version": "3"},
        {"action": "fold", "version": -1},
        {"action": "fold", "extra_field": 1},
        ["fold"],
        "fold",
    ],
    ids=[
        "unknown",
        "uppercase",
        "number",
        "missing",
        "version-string",
        "version-negative",
        "unknown-field",
        "list",
        "string",
    ],
)
def test_malformed_action_bodies(game, unchanged, body):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    unchanged(post(actor, tables_url(t.pk, "actions"), body), 400, "invalid")


def test_malformed_json(game, unchanged):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    response = actor.post(
        tables_url(t.pk, "actions"),
        data='{"action": "fold",',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k-malformed",
    )
    unchanged(response, 400, "malformed_request")
    response = actor.post(
        tables_url(t.pk, "actions"), data="action=fold", content_type="application/x-www-form-urlencoded",
        HTTP_IDEMPOTENCY_KEY="k-form",
    )  # fmt: skip
    unchanged(response, 415, "unsupported_media_type")


def test_stale_version(game, unchanged):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    version = state(actor, t.pk)["version"]
    body = unchanged(act(actor, t.pk, "fold", version=version - 1), 409, "stale_version")
    assert body["extra"]["current"] == version


def test_idempotency_key_and_device_headers(game, unchanged):
    t, players = game["table"], game["players"]
    actor = actor_client(players, game["view"])
    url = tables_url(t.pk, "actions")
    unchanged(post(actor, url, {"action": "fold"}, key=None), 400, "idempotency_key_required")
    unchanged(post(actor, url, {"action": "fold"}, key="   "), 400, "idempotency_key_required")
    unchanged(post(actor, url, {"action": "fold"}, key="k" * 129), 400, "invalid_idempotency_key")
    unchanged(
        post(actor, url, {"action": "fold"}, HTTP_X_DEVICE_ID="d" * 129), 400, "invalid_x_device_id"
    )
    for what in ("sit", "leave", "sit-out", "sit-in", "top-up"):
        unchanged(
            post(actor, tables_url(t.pk, what), {}, key=None), 400, "idempotency_key_required"
        )
    assert post(actor, url, {"action": "fold"}, key="k" * 128).status_code == 200


def test_unknown_table_ids(game, unchanged):
    client = game["outsider"]
    for table_id in (999_999, 2**62):
        unchanged(client.get(tables_url(table_id)), 404, "table_not_found")
        unchanged(client.get(tables_url(table_id, "state")), 404, "table_not_found")
        unchanged(
            post(client, tables_url(table_id, "sit"), {"buy_in": 5_000}), 404, "table_not_found"
        )
        unchanged(act(client, table_id, "fold"), 404, "table_not_found")
        unchanged(post(client, tables_url(table_id, "leave")), 404, "table_not_found")
    unchanged(client.get("/api/v1/tables/abc/"), 404, "not_found")


def test_buy_in_out_of_range_or_above_the_wallet(game, unchanged, auth_client, make_user):
    t, client = game["table"], game["outsider"]
    url = tables_url(t.pk, "sit")
    body = unchanged(post(client, url, {"buy_in": 1_999}), 422, "buy_in_out_of_range")
    assert (body["extra"]["min"], body["extra"]["max"]) == (2_000, 20_000)
    unchanged(post(client, url, {"buy_in": 20_001}), 422, "buy_in_out_of_range")
    unchanged(post(client, url, {"buy_in": 0}), 400, "invalid")
    unchanged(post(client, url, {"buy_in": "5000"}), 400, "invalid")
    unchanged(post(client, url, {"buy_in": 5_000, "seat": 1}), 422, "seat_taken")
    unchanged(post(client, url, {"buy_in": 5_000, "seat": 7}), 400, "invalid_seat")
    unchanged(post(client, url, {"buy_in": 5_000, "seat": 11}), 400, "invalid")
    broke = auth_client(make_user())  # no money at all
    unchanged(post(broke, url, {"buy_in": 5_000}), 422, "insufficient_funds")
    unchanged(post(broke, tables_url(t.pk, "top-up"), {"amount": 5_000}), 403, "not_seated")


def test_seated_player_refusals(game, unchanged):
    t, players = game["table"], game["players"]
    a = players[0]
    unchanged(post(a, tables_url(t.pk, "sit"), {"buy_in": 5_000}), 422, "already_seated")
    unchanged(post(a, tables_url(t.pk, "sit-in")), 422, "not_sitting_out")
    unchanged(post(a, tables_url(t.pk, "top-up"), {"amount": 1_000}), 422, "in_hand")
    unchanged(post(a, tables_url(t.pk, "top-up"), {"amount": 1.5}), 400, "invalid")
    unchanged(post(a, tables_url(t.pk, "leave"), {"now": True}), 400, "invalid")
