"""HTTP helpers of the table API tests: idempotent POSTs, table URLs, sitting, acting and
playing a hand through the REST API."""

from __future__ import annotations

import uuid
from typing import Any

from tests.support.poker import fund


def post(
    client: Any, url: str, body: Any = None, *, key: str | None = "auto", **headers: str
) -> Any:
    """POSTs JSON with a fresh Idempotency-Key (``key=None`` sends none)."""
    if key == "auto":
        key = uuid.uuid4().hex
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return client.post(url, body if body is not None else {}, format="json", **headers)


def tables_url(table_id: int | None = None, what: str = "") -> str:
    if table_id is None:
        return "/api/v1/tables/"
    return f"/api/v1/tables/{table_id}/" + (f"{what}/" if what else "")


def state(client: Any, table_id: int) -> dict[str, Any]:
    response = client.get(tables_url(table_id, "state"))
    assert response.status_code == 200, response.json()
    return response.json()


def sit(
    client: Any, table_id: int, buy_in: int = 10_000, seat: int | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"buy_in": buy_in}
    if seat is not None:
        body["seat"] = seat
    response = post(client, tables_url(table_id, "sit"), body)
    assert response.status_code == 200, response.json()
    return response.json()


def act(client: Any, table_id: int, action: str, amount: int | None = None, **extra: Any) -> Any:
    body: dict[str, Any] = {"action": action, **extra}
    if amount is not None:
        body["amount"] = amount
    return post(client, tables_url(table_id, "actions"), body)


def funded_client(auth_client: Any, make_user: Any, amount: int = 1_000_000, **kw: Any) -> Any:
    user = make_user(**kw)
    fund(user, amount)
    return auth_client(user)


def actor_client(clients: list[Any], view: dict[str, Any]) -> Any | None:
    """The client whose turn it is according to a table view, if any."""
    hand = view["hand"]
    if hand is None or hand["actor_seat"] is None:
        return None
    player_id = next(s["user_id"] for s in view["seats"] if s["seat"] == hand["actor_seat"])
    return next((c for c in clients if c.user.pk == player_id), None)


def fold_hand(clients: list[Any], table_id: int) -> int:
    """The player to act folds; returns the id of the hand that ended."""
    view = state(clients[0], table_id)
    hand_id = view["hand"]["id"]
    response = act(actor_client(clients, view), table_id, "fold")
    assert response.status_code == 200, response.json()
    return hand_id


def check_down(clients: list[Any], table_id: int) -> int:
    """Everyone calls or checks until the hand ends (a showdown); returns its id."""
    hand_id = state(clients[0], table_id)["hand"]["id"]
    while True:
        view = state(clients[0], table_id)
        if view["hand"] is None or view["hand"]["id"] != hand_id:
            return hand_id
        who = actor_client(clients, view)
        legal = state(who, table_id)["you"]["legal_actions"]
        response = act(who, table_id, "check" if "check" in legal["actions"] else "call")
        assert response.status_code == 200, response.json()
