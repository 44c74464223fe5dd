"""The fairness endpoints: your client seed, a hand's deal proof, the public verifier."""

from __future__ import annotations

import itertools
import json

import pytest
from rest_framework.test import APIClient

from poker.api.fairness import VerifyThrottle
from poker.engine.cards import format_card
from poker.engine.deck import commitment, shuffle_deck
from poker.engine.variants import get_variant
from poker.models import ClientSeed, Table
from tests.support.fairness import fold_current_hand, sit, started

pytestmark = pytest.mark.django_db

SEED = bytes(range(32))
_addresses = itertools.count(1)


@pytest.fixture
def anonymous() -> APIClient:
    """A client with an address of its own, so the verifier's throttle counts it alone."""
    n = next(_addresses)
    return APIClient(REMOTE_ADDR=f"10.15.{n // 250}.{n % 250 + 1}")


def body(**changes):
    deck = shuffle_deck(SEED, get_variant("NS").deck, ("a", "b"), 3)
    data = {
        "server_seed": SEED.hex(),
        "commitment": commitment(SEED),
        "client_seeds": ["a", "b"],
        "nonce": 3,
        "variant": "NS",
        "dealt": [{"position": k, "card": format_card(deck[k])} for k in (0, 1, 35)],
    }
    data.update(changes)
    return data


# --- client seed ----------------------------------------------------------------------------


def test_a_player_sets_and_reads_their_client_seed(auth_client):
    client = auth_client()
    assert client.get("/api/v1/fairness/client-seed/").json() == {"seed": ""}
    put = client.put("/api/v1/fairness/client-seed/", {"seed": " my words "}, format="json")
    assert put.status_code == 200 and put.json() == {"seed": " my words "}
    assert client.get("/api/v1/fairness/client-seed/").json() == {"seed": " my words "}


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"seed": "x" * 65}, "invalid"),
        ({"seed": "naïve"}, "invalid_client_seed"),
        ({"seed": 12}, "invalid"),
        ({"seed": "ok", "other": 1}, "invalid"),
        ({}, "invalid"),
        ([], "malformed_request"),
    ],
)
def test_a_bad_client_seed_is_a_typed_400_and_writes_nothing(auth_client, payload, code):
    client = auth_client()
    client.put("/api/v1/fairness/client-seed/", {"seed": "before"}, format="json")
    response = client.put("/api/v1/fairness/client-seed/", payload, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert list(ClientSeed.objects.values_list("seed", flat=True)) == ["before"]


def test_the_client_seed_needs_an_account(api_client):
    assert api_client.get("/api/v1/fairness/client-seed/").status_code == 401


# --- a hand's proof -------------------------------------------------------------------------


def test_a_hand_proof_follows_the_hand_views_refusals(table, player, auth_client, make_user):
    t = table()
    users = [player(), player()]
    sit(t, users)
    running = Table.objects.get(pk=t.pk).current_hand_id
    mine = auth_client(users[0])
    assert mine.get(f"/api/v1/hands/{running}/fairness/").json()["code"] == "hand_in_progress"
    ended = fold_current_hand(t)
    proof = mine.get(f"/api/v1/hands/{ended}/fairness/")
    assert proof.status_code == 200
    assert proof.json()["hand"] == ended and proof.json()["server_seed"] is None
    stranger = auth_client(make_user())
    assert stranger.get(f"/api/v1/hands/{ended}/fairness/").status_code == 404
    assert mine.get(f"/api/v1/hands/{ended}/fairness/?full=1").status_code == 403
    staff = auth_client(make_user(role="support"))
    full = staff.get(f"/api/v1/hands/{ended}/fairness/?full=1").json()
    assert full["server_seed"] == started(ended).server_seed
    check = APIClient().post("/api/v1/fairness/verify/", {
        k: full[k] for k in ("server_seed", "commitment", "client_seeds", "nonce", "variant")
    } | {"dealt": [{"position": d["position"], "card": d["card"]} for d in full["dealt"]]},
        format="json")  # fmt: skip
    assert check.json()["ok"] is True


@pytest.mark.parametrize("path", ["/api/v1/hands/{}/", "/api/v1/hands/{}/fairness/"])
@pytest.mark.parametrize("value", ["", "maybe"])
def test_a_full_flag_that_is_no_boolean_is_a_typed_400(table, player, auth_client, path, value):
    t = table()
    users = [player(), player()]
    sit(t, users)
    ended = fold_current_hand(t)
    response = auth_client(users[0]).get(path.format(ended) + f"?full={value}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


# --- the public verifier --------------------------------------------------------------------


def test_anyone_may_verify_a_deal(anonymous):
    response = anonymous.post("/api/v1/fairness/verify/", body(), format="json")
    assert response.status_code == 200
    result = response.json()
    assert result["ok"] and result["commitment_matches"] and result["mismatches"] == []
    expected = shuffle_deck(SEED, get_variant("NS").deck, ("a", "b"), 3)
    assert result["deck"] == [format_card(c) for c in expected]


def test_a_wrong_card_or_commitment_fails_the_check_and_says_where(anonymous):
    good = body()
    wrong_card = good["dealt"][1]["card"]
    dealt = [good["dealt"][0], {"position": 1, "card": good["dealt"][0]["card"]}]
    result = anonymous.post("/api/v1/fairness/verify/", body(dealt=dealt), format="json").json()
    assert not result["ok"] and result["commitment_matches"]
    assert result["mismatches"] == [
        {"position": 1, "card": good["dealt"][0]["card"], "deck_has": wrong_card}
    ]
    other = commitment(bytes(32))
    result = anonymous.post("/api/v1/fairness/verify/", body(commitment=other), format="json")
    assert result.json()["ok"] is False and result.json()["commitment_matches"] is False


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"server_seed": "zz" * 32}, "invalid"),
        ({"server_seed": "00" * 8}, "invalid"),
        ({"server_seed": "0" * 33}, "invalid_server_seed"),
        ({"commitment": "ab"}, "invalid"),
        ({"variant": "XX"}, "invalid"),
        ({"nonce": -1}, "invalid"),
        ({"nonce": "3"}, "invalid"),
        ({"client_seeds": "ab"}, "invalid"),
        ({"dealt": [{"position": 36, "card": "Ah"}]}, "position_out_of_range"),
        ({"dealt": [{"position": 0, "card": "Zz"}]}, "invalid_card"),
        ({"dealt": [{"position": 0, "card": "Ah", "to": 1}]}, "invalid"),
        ({"extra": 1}, "invalid"),
    ],
)
def test_bad_input_to_the_verifier_is_a_typed_400(anonymous, changes, code):
    response = anonymous.post("/api/v1/fairness/verify/", body(**changes), format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == code


def test_a_client_seed_that_is_not_unicode_text_is_a_typed_400(anonymous):
    raw = json.dumps(body(client_seeds=["\ud800"]))  # JSON may escape a lone surrogate
    response = anonymous.post("/api/v1/fairness/verify/", raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_the_verifier_is_throttled_per_address(anonymous, monkeypatch):
    monkeypatch.setattr(VerifyThrottle, "rate", "2/min")
    statuses = [
        anonymous.post("/api/v1/fairness/verify/", body(), format="json").status_code
        for _ in range(3)
    ]
    assert statuses == [200, 200, 429]


def test_the_fairness_endpoints_are_in_the_openapi_schema(api_client):
    paths = api_client.get("/api/schema/?format=json").json()["paths"]
    assert "/api/v1/fairness/verify/" in paths
    assert "/api/v1/hands/{hand_id}/fairness/" in paths
    assert "/api/v1/fairness/client-seed/" in paths


# --- the /fairness/ page --------------------------------------------------------------------


def test_the_fairness_page_is_public_and_mounts_a_hands_panel_only_for_a_hand_id(client, make_user):
    page = client.get("/fairness/?hand=12").content.decode()
    assert 'id="fairness" data-hand-id="12"' in page
    assert "poker/fairness.js" in page and "client-seed-form" not in page
    assert 'id="fairness"' not in client.get("/fairness/?hand=12x").content.decode()
    client.force_login(make_user())
    assert "client-seed-form" in client.get("/fairness/").content.decode()
