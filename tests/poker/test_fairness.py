"""Provably fair deals through the table service: pre-committed seeds, client seeds, and
per-viewer deal proofs (poker.fairness)."""

from __future__ import annotations

import json
import random

import pytest

from core.errors import InvalidRequest
from handhistory.exports import FORMATS
from handhistory.exports.records import Viewer, hand_records
from handhistory.models import Event as EventRow
from handhistory.models import Hand
from poker import table_io
from poker.engine.cards import format_card, parse_card
from poker.engine.deck import shuffle_deck, verify_deal
from poker.engine.events import CardsShown, HoleCardsDealt
from poker.engine.variants import get_variant
from poker.fairness import (
    WITHHELD_NOT_ALL_SHOWN,
    client_seed_get,
    client_seed_set,
    deal_verify,
    hand_fairness,
)
from poker.models import ClientSeed, Table, TableUpdate
from poker.published import published
from poker.selectors import lobby, table_view
from tests.support.fairness import fold_current_hand, sit, started
from tests.support.handhistory import TABLES, played_hands
from tests.support.poker import force_embedded_store, play_random_hands

pytestmark = pytest.mark.django_db(transaction=True)


# --- the pre-commitment ---------------------------------------------------------------------


def test_the_commitment_published_before_a_hand_is_that_hands_deck_commitment(table, player):
    t = table()
    users = [player(), player()]
    before = table_view(table_id=t.pk, viewer_id=None)["next_deck_commitment"]
    sit(t, users)
    first = Table.objects.get(pk=t.pk).current_hand_id
    assert started(first).deck_commitment == before
    following = table_view(table_id=t.pk, viewer_id=users[0].pk)["next_deck_commitment"]
    assert following != before
    # The WebSocket sends what the command published: the same commitment.
    assert published(t.pk).public["next_deck_commitment"] == following
    fold_current_hand(t)
    second = Table.objects.get(pk=t.pk).current_hand_id
    assert second != first
    assert started(second).deck_commitment == following


@pytest.mark.parametrize("branch", ["orm", "raw"])
def test_each_hand_deals_from_the_seed_committed_before_it_on_both_storage_branches(
    table, player, monkeypatch, branch
):
    """The raw-SQL write (PostgreSQL) and the ORM one (SQLite) both store the next seed, so
    every hand, dealt by a warm or a cold process, uses the seed the view committed to."""
    if branch == "orm":
        force_embedded_store(monkeypatch)
    table_io._CACHE.clear()
    t = table()
    users = [player(), player()]
    committed = [table_view(table_id=t.pk, viewer_id=None)["next_deck_commitment"]]
    sit(t, users)
    for cold in (False, True, False):
        committed.append(table_view(table_id=t.pk, viewer_id=None)["next_deck_commitment"])
        if cold:
            table_io._CACHE.clear()  # the next command loads the row from the database
        fold_current_hand(t)
    hands = Hand.objects.filter(table=t).order_by("number").values_list("pk", flat=True)
    assert [started(h).deck_commitment for h in hands] == committed
    assert len(set(committed)) == len(committed)


# --- client seeds ---------------------------------------------------------------------------


def test_client_seeds_are_mixed_into_the_deck_in_the_engines_player_order(table, player):
    t = table()
    users = [player(), player(), player()]
    client_seed_set(player_id=users[0].pk, seed="alice's words")
    client_seed_set(player_id=users[2].pk, seed="  carol ~ 42 ")
    sit(t, users)
    hand = Hand.objects.get(pk=Table.objects.get(pk=t.pk).current_hand_id)
    event = started(hand.pk)
    expected = {users[0].pk: "alice's words", users[1].pk: "", users[2].pk: "  carol ~ 42 "}
    assert event.client_seeds == tuple(expected[p] for p in hand.player_ids)
    deck = shuffle_deck(bytes.fromhex(event.server_seed), get_variant("NT").deck,
                        event.client_seeds, event.nonce)  # fmt: skip
    unseeded = shuffle_deck(bytes.fromhex(event.server_seed), get_variant("NT").deck, (), 0)
    assert deck != unseeded
    rows = EventRow.objects.filter(stream=hand.stream, type="HoleCardsDealt").order_by("seq")
    dealt = [c for r in rows for c in r.payload["cards"]]
    assert deck[: len(dealt)] == tuple(dealt)


def test_a_changed_client_seed_counts_from_the_next_hand(table, player):
    t = table()
    users = [player(), player()]
    sit(t, users)
    first = Table.objects.get(pk=t.pk).current_hand_id
    client_seed_set(player_id=users[1].pk, seed="changed")
    fold_current_hand(t)
    second = Table.objects.get(pk=t.pk).current_hand_id
    assert started(first).client_seeds == ("", "")
    hand = Hand.objects.get(pk=second)
    assert started(second).client_seeds[hand.player_ids.index(users[1].pk)] == "changed"


@pytest.mark.parametrize(
    ("seed", "why"),
    [
        ("x" * 65, "length"),
        ("café", "character"),
        ("tab\there", "character"),
        ("\x00", "character"),
    ],
)
def test_an_invalid_client_seed_is_refused_and_nothing_is_written(make_user, seed, why):
    user = make_user()
    client_seed_set(player_id=user.pk, seed="kept")
    with pytest.raises(InvalidRequest) as refused:
        client_seed_set(player_id=user.pk, seed=seed)
    assert refused.value.code == "invalid_client_seed"
    assert why in refused.value.extra
    assert client_seed_get(player_id=user.pk) == "kept"
    assert ClientSeed.objects.count() == 1


def test_an_empty_client_seed_clears_it(make_user):
    user = make_user()
    client_seed_set(player_id=user.pk, seed="something")
    client_seed_set(player_id=user.pk, seed="")
    assert client_seed_get(player_id=user.pk) == ""


# --- the secret stays secret ----------------------------------------------------------------


def test_the_next_seed_and_the_running_hands_seed_appear_in_no_view_or_update(
    table, player, auth_client, admin_client
):
    t = table()
    users = [player(), player(), player()]
    sit(t, users)
    hand_id = Table.objects.get(pk=t.pk).current_hand_id
    secrets = {Table.objects.get(pk=t.pk).next_server_seed, started(hand_id).server_seed}
    client = auth_client(users[0])
    bodies = [
        table_view(table_id=t.pk, viewer_id=None),
        *(table_view(table_id=t.pk, viewer_id=u.pk) for u in users),
        lobby(),
        published(t.pk).public,  # what the WebSocket sends
        *TableUpdate.objects.filter(table=t).values_list("payload", flat=True),
        client.get(f"/api/v1/tables/{t.pk}/").json(),
        client.get(f"/api/v1/tables/{t.pk}/state/").json(),
        client.get(f"/api/v1/hands/{hand_id}/").json(),
        client.get(f"/api/v1/hands/{hand_id}/fairness/").json(),
        client.get("/api/v1/tables/").json(),
    ]
    admin_pages = [
        admin_client.get(f"/admin/poker/table/{t.pk}/change/"),
        admin_client.get(f"/admin/handhistory/hand/{hand_id}/change/"),
        admin_client.get("/admin/poker/table/"),
    ]
    # The running hand's own page (every card) is refused until it ends (poker.full_view).
    assert [page.status_code for page in admin_pages] == [200, 403, 200]
    bodies += [page.content.decode() for page in admin_pages]
    text = json.dumps(bodies, default=str)
    for secret in secrets:
        assert secret not in text
    assert "next_server_seed" not in text


def test_a_folded_hands_seed_stays_out_of_every_players_proof_and_export(table, player):
    t = table()
    users = [player(), player(), player()]
    sit(t, users)
    hand_id = fold_current_hand(t)
    (record,) = hand_records([hand_id])
    assert not any(isinstance(e, CardsShown) for e in record.events)
    seed = started(hand_id).server_seed
    for user_id in record.player_ids:
        proof = hand_fairness(hand_id=hand_id, viewer_id=user_id)
        assert proof["server_seed"] is None
        assert proof["withheld_reason"] == WITHHELD_NOT_ALL_SHOWN
        exports = [fmt.hand(record, Viewer(user_id=user_id)) for fmt in FORMATS.values()]
        assert seed not in json.dumps(proof) + "".join(exports)
        mine = record.player_index(Viewer(user_id=user_id))
        others = {
            format_card(c)
            for e in record.events
            if isinstance(e, HoleCardsDealt) and e.player != mine
            for c in e.cards
        }
        assert not others & {d["card"] for d in proof["dealt"]}


# --- proofs ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_the_staff_proof_of_every_played_hand_verifies(table, player, variant):
    _t, _users, ids = played_hands(table, player, hands=6, seed=15, **TABLES[variant])
    assert ids
    for hand_id in ids:
        proof = hand_fairness(hand_id=hand_id, viewer_id=None, full=True)
        assert proof["server_seed"] and proof["algorithm"] == "poker-deck-v1"
        positions = [d["position"] for d in proof["dealt"]]
        assert positions == list(range(len(positions)))
        result = deal_verify(
            server_seed=proof["server_seed"], commitment=proof["commitment"],
            client_seeds=proof["client_seeds"], nonce=proof["nonce"],
            variant=proof["variant"], dealt=proof["dealt"],
        )  # fmt: skip
        assert result["ok"], (hand_id, result["mismatches"])
        assert verify_deal(
            server_seed=bytes.fromhex(proof["server_seed"]), commitment=proof["commitment"],
            cards=proof["deck"], client_seeds=proof["client_seeds"], nonce=proof["nonce"],
            dealt=[parse_card(d["card"]) for d in proof["dealt"]],
        )  # fmt: skip
        assert len(proof["deck"]) == (36 if variant == "NS" else 52)


def test_a_players_proof_places_their_own_cards_and_the_board(table, player):
    t = table()
    users = [player(), player(), player()]
    sit(t, users)
    play_random_hands(t, users, 3, random.Random(7))
    ids = Hand.objects.filter(table=t, ended_at__isnull=False).values_list("pk", flat=True)
    for hand_id in ids:
        (record,) = hand_records([hand_id])
        full = {d["position"]: d for d in hand_fairness(hand_id=hand_id, viewer_id=None,
                                                         full=True)["dealt"]}  # fmt: skip
        for user_id in record.player_ids:
            proof = hand_fairness(hand_id=hand_id, viewer_id=user_id)
            seen = record.seen_by(Viewer(user_id=user_id))
            known = sum(
                1 for e in seen if hasattr(e, "cards") and not isinstance(e, CardsShown)
                for c in e.cards if c >= 0
            )  # fmt: skip
            assert len(proof["dealt"]) == known
            for d in proof["dealt"]:
                assert full[d["position"]] == d
            if proof["server_seed"] is not None:
                assert (
                    proof["server_seed"]
                    == hand_fairness(hand_id=hand_id, viewer_id=None, full=True)["server_seed"]
                )


def test_a_proof_of_someone_elses_hand_or_a_running_hand_is_refused(table, player, make_user):
    from core.errors import Conflict, NotFound

    t = table()
    users = [player(), player()]
    sit(t, users)
    running = Table.objects.get(pk=t.pk).current_hand_id
    with pytest.raises(Conflict) as conflict:
        hand_fairness(hand_id=running, viewer_id=users[0].pk)
    assert conflict.value.code == "hand_in_progress"
    with pytest.raises(NotFound):
        hand_fairness(hand_id=running, viewer_id=make_user().pk)
    with pytest.raises(NotFound):
        hand_fairness(hand_id=running + 1000, viewer_id=None, full=True)
