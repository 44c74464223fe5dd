"""PHH exports of hands played through the real table service, read back by pokerkit and by
our own replay_phh."""

from __future__ import annotations

import io
import json
import tomllib

import pytest
from django.core.management import call_command
from pokerkit import HandHistory

from handhistory.exports import FORMATS, phh, write_hands
from handhistory.exports.records import STAFF, Viewer, hand_records, iter_hand_records
from handhistory.models import Hand
from ledger.models import Account
from poker.engine import phh_cli
from poker.engine.events import AntePosted, PotAwarded, UncalledBetReturned
from poker.models import Seat
from tests.support.handhistory import TABLES, assert_pokerkit_replays, played_hands, settled

pytestmark = pytest.mark.django_db


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


def test_replay_phh_checks_each_hand_of_the_sites_own_phhs_exports(table, player, tmp_path):
    _, users, ids = played_hands(table, player, hands=8, seed=11, **TABLES["NT"])
    records = hand_records(ids)
    (tmp_path / "all.phhs").write_text(FORMATS["phh"].many(records, STAFF))
    # One hand is still a .phhs export (a table [1]); beside it a plain .phh file.
    mine = Viewer(user_id=users[1].pk)
    (tmp_path / "one.phhs").write_text(FORMATS["phh"].many(records[:1], mine))
    (tmp_path / "one.phh").write_text(phh.hand_phh(records[0], mine))
    out = io.StringIO()
    call_command("replay_phh", "--check", str(tmp_path), stdout=out)
    lines = out.getvalue().splitlines()
    count = len(records) + 2
    assert lines[-1].startswith(f"{count} hands: {count} matched, 0 mismatched, 0 errors"), lines
    expected = [
        *(f"{tmp_path / 'all.phhs'}[{k}]: " for k in range(1, len(records) + 1)),
        f"{tmp_path / 'one.phh'}: ",
        f"{tmp_path / 'one.phhs'}[1]: ",
    ]
    assert [line.split(": ", 1)[0] + ": " for line in lines[:-1]] == expected
    stacks = [" ".join(map(str, settled(r.hand_id, r))) for r in records]
    assert [line.split(": ", 1)[1] for line in lines[: len(records)]] == stacks


def test_replay_phh_reports_a_broken_hand_of_a_phhs_file_and_checks_the_others(
    table, player, tmp_path
):
    _, _, ids = played_hands(table, player, hands=3, seed=11, **TABLES["NT"])
    records = hand_records(ids)
    text = FORMATS["phh"].many(records, STAFF).replace('variant = "NT"', 'variant = "XX"', 2)
    path = tmp_path / "broken.phhs"
    path.write_text(text.replace('variant = "XX"', 'variant = "NT"', 1))
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("replay_phh", "--check", "--json", str(path), stdout=out, stderr=err)
    assert exit_.value.code == 1
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["path"] for r in results] == [f"{path}[{k}]" for k in range(1, len(records) + 1)]
    assert [("error" in r) for r in results] == [False, True, *[False] * (len(records) - 2)]
    assert "phh_unsupported_variant" in results[1]["error"]
    assert all(r["match"] for r in results if "error" not in r)
    # A file that is not TOML at all is one error, named by the file.
    path.write_text("[1]\nvariant = \n")
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("replay_phh", "--json", str(path), stdout=out, stderr=err)
    (only,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert only["path"] == str(path) and only["error"].startswith("phh_bad_toml")


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
