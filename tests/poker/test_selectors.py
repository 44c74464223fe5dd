"""poker.selectors: the lobby, a viewer's table view, the view published by this process's
last command, the missed updates, and who may read a hand."""

from __future__ import annotations

import pytest

from core.errors import NotFound
from poker import published, selectors
from poker.commands.play import table_act
from poker.commands.seating import table_sit
from poker.models import Table
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db


def _sit(t, user, seat):
    table_sit(table_id=t.pk, player_id=user.pk, buy_in=10_000, seat=seat, key=key(),
              actor=actor_for(user))  # fmt: skip


def _heads_up(table, player):
    t = table()
    a, b = player(), player()
    _sit(t, a, 1)
    _sit(t, b, 2)
    t.refresh_from_db()
    return t, a, b


def test_the_lobby_lists_the_tables_not_closed_with_their_seats_taken(table, player):
    t, _, _ = _heads_up(table, player)
    empty = table(name="Empty")
    closed = table(name="Closed")
    Table.objects.filter(pk=closed.pk).update(status=Table.Status.CLOSED)
    rows = {row["id"]: row for row in selectors.lobby()}
    assert closed.pk not in rows
    assert (rows[t.pk]["seats_taken"], rows[empty.pk]["seats_taken"]) == (2, 0)
    assert rows[empty.pk]["average_pot"] == 0
    assert rows[t.pk]["big_blind"] == 100 and rows[t.pk]["status"] == t.status


def test_a_viewer_sees_their_own_cards_and_a_spectator_sees_none(table, player):
    t, a, _ = _heads_up(table, player)
    mine = selectors.table_view(table_id=t.pk, viewer_id=a.pk)
    spectator = selectors.table_view(table_id=t.pk, viewer_id=None)
    assert mine["you"]["seat"] == 1 and len(mine["you"]["hole_cards"]) == 4  # "Kh7d"
    assert spectator["you"] is None
    assert mine["version"] == spectator["version"] == t.version
    with pytest.raises(NotFound) as missing:
        selectors.table_view(table_id=t.pk + 1000, viewer_id=None)
    assert missing.value.code == "table_not_found"


# A version is published only after its real commit (poker.published).
@pytest.mark.django_db(transaction=True)
def test_the_published_view_is_the_database_view_of_that_version_only(table, player):
    t, a, b = _heads_up(table, player)
    for viewer in (a.pk, b.pk, None):
        assert selectors.view_at(table_id=t.pk, viewer_id=viewer, version=t.version) == (
            selectors.table_view(table_id=t.pk, viewer_id=viewer)
        )
    assert selectors.view_at(table_id=t.pk, viewer_id=a.pk, version=t.version - 1) is None
    published._PUBLISHED.clear()  # as in a process that did not commit the version
    assert selectors.view_at(table_id=t.pk, viewer_id=a.pk, version=t.version) is None


def test_missed_updates_come_in_order_or_not_at_all_when_too_many(table, player, monkeypatch):
    t, _, _ = _heads_up(table, player)
    updates = selectors.updates_since(table_id=t.pk, from_version=t.version - 2)
    assert [u["version"] for u in updates] == [t.version - 1, t.version]
    assert selectors.updates_since(table_id=t.pk, from_version=t.version) == []
    monkeypatch.setattr(selectors, "RESYNC_MAX_UPDATES", 1)
    assert selectors.updates_since(table_id=t.pk, from_version=t.version - 2) is None
    with pytest.raises(NotFound):
        selectors.updates_since(table_id=t.pk + 1000, from_version=0)


def test_a_hand_is_read_by_its_players_and_staff_only(table, player):
    t, a, b = _heads_up(table, player)
    actor = a if selectors.table_view(table_id=t.pk, viewer_id=a.pk)["you"]["legal_actions"] else b
    table_act(table_id=t.pk, player_id=actor.pk, action="fold", amount=None, key=key(),
              actor=actor_for(actor))  # fmt: skip
    hand_id = t.current_hand_id
    outsider = player()
    with pytest.raises(NotFound) as refused:
        selectors.hand_detail(hand_id=hand_id, viewer_id=outsider.pk)
    assert refused.value.code == "hand_not_found"
    seen = selectors.hand_detail(hand_id=hand_id, viewer_id=a.pk)
    assert seen["id"] == hand_id and seen["summary"] is not None
    assert selectors.hand_detail(hand_id=hand_id, viewer_id=None, full=True)["id"] == hand_id
    assert selectors.tables_played(player_id=a.pk) == [{"id": t.pk, "name": t.name}]
    assert selectors.tables_played(player_id=outsider.pk) == []
