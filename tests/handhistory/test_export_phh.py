"""PHH exports of hands played through the real table service, read back by pokerkit and by
our own replay_phh."""

from __future__ import annotations

import io
import random
import tomllib
from typing import Any

import pytest
from pokerkit import HandHistory

from handhistory.exports import FORMATS, phh, write_hands
from handhistory.exports.records import STAFF, Viewer, hand_records, iter_hand_records
from handhistory.models import PlayerHandResult
from ledger.models import Account
from poker.commands.seating import table_sit
from poker.engine import phh_cli
from poker.engine.events import AntePosted, PotAwarded, RakeTaken, UncalledBetReturned
from poker.models import Hand, Seat
from tests.support.poker import actor_for, key, play_hands_with_rebuys, play_random_hands

pytestmark = pytest.mark.django_db(transaction=True)

#: Buy-ins far apart so all-ins make side pots; antes, rake and uncalled bets come with the
#: table settings and the random play.
BUY_INS = (2_000, 5_000, 12_000)
TABLES = {
    "NT": {"variant": "NT", "ante": 10, "rake_bps": 500, "rake_cap": 150},
    "FT": {"variant": "FT", "rake_bps": 500, "rake_cap": 100},
    "PO": {"variant": "PO", "ante": 10, "rake_bps": 300, "rake_cap": 200},
    "NS": {"variant": "NS", "ante": 50},
}


class Fold:
    """A chooser that folds (checks when it may): ends the heads-up hand dealt before the
    third player sat at little cost."""

    def choice(self, options: list[Any]) -> Any:
        return next(a for a in ("check", "fold") if a in options)


class Shove:
    """A chooser for ``play_random_hands`` that bets or raises everything, else calls:
    three different stacks all in make a main pot and side pots."""

    def choice(self, options: list[Any]) -> Any:
        if isinstance(options[0], int):
            return options[1]  # [min_to, max_to, middle]
        return next(a for a in ("raise", "bet", "call", "check") if a in options)


def played_hands(make_table: Any, make_player: Any, *, hands: int, seed: int | None, **table: Any):
    """A table after ``hands`` random hands; returns (table, users, finished hand ids)."""
    t = make_table(**table)
    users = [make_player() for _ in BUY_INS]
    for user, buy_in in zip(users, BUY_INS, strict=True):
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=buy_in, key=key(), actor=actor_for(user))
    if seed is None:
        play_random_hands(t, users, 0, Fold())  # counts the hand under way: ends it only
        play_random_hands(t, users, hands, Shove())
    else:
        play_hands_with_rebuys(t, users, BUY_INS, hands, random.Random(seed))
    ids = list(
        Hand.objects.filter(table=t, ended_at__isnull=False)
        .order_by("number")
        .values_list("pk", flat=True)
    )
    return t, users, ids


def settled(hand_id: int, record: Any) -> list[int]:
    """The stacks the hand's settlement wrote, in the record's (engine) order."""
    final = dict(
        PlayerHandResult.objects.filter(hand_id=hand_id).values_list("player_id", "final_stack")
    )
    return [final[u] for u in record.player_ids]


def pokerkit_stacks(text: str) -> list[int]:
    """The final stacks pokerkit replays the file to (pokerkit's default: no rake)."""
    return list(list(HandHistory.loads(text))[-1].stacks)


def rake_back(record: Any, stacks: list[int]) -> list[int]:
    """``stacks`` with each pot's rake given back to its winner.

    pokerkit rakes pot by pot from the amount it computes for the pot, and it computes
    other amounts than the pots that were raked (an uncalled bet counts in a fold-won pot;
    pots merge once their losers are out), so no rake function can take what the house
    took: replay without rake and add the rake back to what was settled instead. A split
    raked pot's share is checked on the pair's total (see the caller).
    """
    out = list(stacks)
    rakes = next((e.amounts for e in record.events if isinstance(e, RakeTaken)), ())
    for e in record.events:
        if isinstance(e, PotAwarded) and rakes and len(e.winners) == 1:
            out[e.winners[0]] += rakes[e.pot]
    return out


def split_raked(record: Any) -> set[int]:
    rakes = next((e.amounts for e in record.events if isinstance(e, RakeTaken)), ())
    return {
        w
        for e in record.events
        if isinstance(e, PotAwarded) and rakes and rakes[e.pot] and len(e.winners) > 1
        for w in e.winners
    }


def assert_pokerkit_replays(text: str, record: Any) -> None:
    """pokerkit's replay ends on the settled stacks, rake aside (:func:`rake_back`)."""
    data = tomllib.loads(text)
    mine = rake_back(record, settled(record.hand_id, record))
    theirs = pokerkit_stacks(text)
    split = split_raked(record)
    assert [v for p, v in enumerate(theirs) if p not in split] == [
        v for p, v in enumerate(mine) if p not in split
    ], text
    assert sum(theirs) == sum(settled(record.hand_id, record)) + data["_rake"], text


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_every_exported_phh_hand_replays_in_pokerkit_to_the_settled_stacks(table, player, variant):
    t, users, ids = played_hands(table, player, hands=40, seed=15, **TABLES[variant])
    assert len(ids) >= 5
    records = hand_records(ids)
    assert [r.hand_id for r in records] == ids
    for record in records:
        for viewer in (STAFF, Viewer(user_id=users[0].pk)):
            text = phh.hand_phh(record, viewer)
            assert_pokerkit_replays(text, record)
            assert tomllib.loads(text)["finishing_stacks"] == settled(record.hand_id, record)
    # The last hand's finishing stacks are what the ledger holds on the seats now.
    last = records[-1]
    balances = {
        s.player_id: Account.objects.get(pk=s.stake_account_id).balance
        for s in Seat.objects.filter(table=t)
    }
    assert [balances[u] for u in last.player_ids if u in balances] == [
        s
        for u, s in zip(last.player_ids, settled(last.hand_id, last), strict=True)
        if u in balances
    ]


@pytest.mark.parametrize("variant", ["NT", "NS", "PO"])
def test_exported_all_in_hands_with_antes_side_pots_and_uncalled_bets_replay_in_pokerkit(
    table, player, variant
):
    _, users, ids = played_hands(table, player, hands=3, seed=None, **TABLES[variant])
    records = hand_records(ids)
    three = records[1]  # the first hand all three played: everyone all in
    assert len(three.seats) == 3
    assert any(isinstance(e, AntePosted) for e in three.events)
    assert any(isinstance(e, PotAwarded) and e.pot > 0 for e in three.events)  # a side pot
    # The engine caps a shove at what others can call, so the uncalled bet comes from the
    # heads-up hand before, folded to the big blind.
    assert any(isinstance(e, UncalledBetReturned) for e in records[0].events)
    for record in records:
        for viewer in (STAFF, Viewer(user_id=users[1].pk)):
            assert_pokerkit_replays(phh.hand_phh(record, viewer), record)


def test_exported_phh_hands_pass_our_own_replay_phh_check(table, player, tmp_path):
    _, users, ids = played_hands(table, player, hands=15, seed=7, **TABLES["NT"])
    records = hand_records(ids)
    for viewer, folder in ((STAFF, "staff"), (Viewer(user_id=users[1].pk), "player")):
        (tmp_path / folder).mkdir()
        for record in records:
            (tmp_path / folder / f"{record.hand_id}.phh").write_text(phh.hand_phh(record, viewer))
    out = io.StringIO()
    status = phh_cli.main(["--check", str(tmp_path)], out=out, err=out)
    assert status == 0, out.getvalue()
    assert f"{2 * len(records)} hands: {2 * len(records)} matched" in out.getvalue()


def test_a_phhs_file_holds_every_hand_as_numbered_tables_pokerkit_loads(table, player):
    _, users, ids = played_hands(table, player, hands=6, seed=3, **TABLES["PO"])
    records = hand_records(ids)
    text = FORMATS["phh"].many(records, Viewer(user_id=users[2].pk))
    assert sorted(tomllib.loads(text), key=int) == [str(k) for k in range(1, len(records) + 1)]
    loaded = list(HandHistory.loads_all(text))
    assert [h.hand for h in loaded] == [r.hand_id for r in records]
    assert [h.players for h in loaded] == [list(r.usernames) for r in records]
    for hh, record in zip(loaded, records, strict=True):
        assert hh.finishing_stacks == settled(record.hand_id, record)


def test_streaming_records_in_small_chunks_gives_every_finished_hand_in_id_order(table, player):
    t, _, ids = played_hands(table, player, hands=7, seed=5, **TABLES["NT"])
    streamed = list(iter_hand_records(Hand.objects.filter(table=t), chunk_size=2))
    assert [r.hand_id for r in streamed] == sorted(ids)
    assert streamed == hand_records(sorted(ids))
    seen: list[int] = []
    out = io.StringIO()
    count = write_hands(FORMATS["phh"], streamed, STAFF, out, progress=seen.append)
    assert count == len(ids) and seen == list(range(1, len(ids) + 1))
    assert out.getvalue() == FORMATS["phh"].many(hand_records(sorted(ids)), STAFF)
    assert [h.hand for h in HandHistory.loads_all(out.getvalue())] == sorted(ids)
