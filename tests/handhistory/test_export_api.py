"""``GET /api/v1/hands/<id>/?format=phh|pokerstars``: the text export over REST, its privacy
and its refusals."""

from __future__ import annotations

import pytest

from handhistory.models import Event, Hand
from ledger.models import Transfer
from tests.support.exports import export

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("fmt", ["phh", "pokerstars"])
def test_a_players_export_never_holds_a_folded_players_cards_nor_the_seed(folded_hand, fmt):
    a, b = folded_hand["cards"]
    for client in folded_hand["others"]:
        response = export(client, folded_hand["hand"], fmt)
        assert response.status_code == 200
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        text = response.content.decode()
        for hidden in (a + b, b + a, f"[{a} {b}]", f"[{b} {a}]"):
            assert hidden not in text
        assert folded_hand["seed"] not in text
    # The folder sees their own cards.
    own = export(folded_hand["folder"], folded_hand["hand"], fmt).content.decode()
    assert a + b in own or f"[{a} {b}]" in own


def test_a_phh_export_writes_unseen_cards_as_unknown(folded_hand):
    text = export(folded_hand["others"][0], folded_hand["hand"], "phh").content.decode()
    assert "????" in text


def test_staff_full_export_holds_every_card_and_the_seed(folded_hand, auth_client, make_user):
    staff = auth_client(make_user(role="support"))
    a, b = folded_hand["cards"]
    phh = export(staff, folded_hand["hand"], "phh", full=1).content.decode()
    assert a + b in phh and folded_hand["seed"] in phh
    stars = export(staff, folded_hand["hand"], "pokerstars", full=1).content.decode()
    assert f"[{a} {b}]" in stars
    # Without full=1 a staff member is a player like any other: not their hand.
    assert export(staff, folded_hand["hand"], "phh").json()["code"] == "hand_not_found"


def test_bad_export_requests_are_typed_errors_that_change_nothing(folded_hand, auth_client):
    events, transfers = Event.objects.count(), Transfer.objects.count()
    me = folded_hand["others"][0]
    response = export(me, folded_hand["hand"], "ohh-xml")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "unknown_format"
    assert body["extra"] == {"format": "ohh-xml", "formats": ["ohh", "phh", "pokerstars"]}
    stranger = export(auth_client(), folded_hand["hand"], "phh")
    assert stranger.status_code == 404 and stranger.json()["code"] == "hand_not_found"
    not_staff = export(me, folded_hand["hand"], "phh", full=1)
    assert not_staff.status_code == 403 and not_staff.json()["code"] == "permission_denied"
    missing = export(me, 10**9, "pokerstars")
    assert missing.status_code == 404 and missing.json()["code"] == "hand_not_found"
    assert (Event.objects.count(), Transfer.objects.count()) == (events, transfers)


def test_a_staff_view_of_a_hand_with_every_card_is_recorded_like_the_staff_hand_page(
    folded_hand, make_user
):
    from core.errors import Forbidden, NotFound
    from handhistory.services import hand_view_full_record
    from staff.models import StaffAction

    hand_id = folded_hand["hand"]
    with pytest.raises(Forbidden):
        hand_view_full_record(hand_id=hand_id, staff_id=folded_hand["folder"].user.pk)
    support = make_user(role="support")
    with pytest.raises(NotFound):
        hand_view_full_record(hand_id=10**9, staff_id=support.pk)
    assert not StaffAction.objects.exists()
    hand_view_full_record(hand_id=hand_id, staff_id=support.pk)
    (line,) = StaffAction.objects.all()
    assert (line.actor, line.action, line.target) == (support, "hand.view_full", f"hand:{hand_id}")
    assert line.data["players"] == sorted(Hand.objects.get(pk=hand_id).player_ids)
