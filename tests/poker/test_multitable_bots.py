"""Bots play hundreds of hands on four tables (NT, FT, PO, NS) over the REST API with
random legal actions; then the money must add up everywhere.

Also holds the bot driver that ``test_privacy`` reuses.
"""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection
from django.db.models import Sum

from handhistory.models import Hand, HandSummary, PlayerHandResult
from handhistory.verification import verify_chains, verify_settlements
from ledger.audit import ledger_audit
from ledger.models import Account
from poker import money
from poker.commands.staff import staff_actor, table_pause
from poker.hands import hand_state
from poker.models import Seat, Table
from tests.support.bots import bot_step, seat_three, top_up_broke


def stakes_match_engine(table: Table) -> None:
    """The ledger's seat stakes equal the stacks the engine started the current hand with
    (and, between hands, the stacks it ended the last one with)."""
    table.refresh_from_db()
    seats = {
        s.player_id: Account.objects.get(pk=s.stake_account_id).balance
        for s in Seat.objects.filter(table=table)
    }
    if table.current_hand_id is not None:
        hand = Hand.objects.get(pk=table.current_hand_id)
        stacks = hand_state(hand, use_snapshot=False)[0].config.starting_stacks
    else:
        hand = Hand.objects.filter(table=table).order_by("-number").first()
        if hand is None:
            return
        stacks = hand_state(hand, use_snapshot=False)[0].stacks
    for player_id, stack in zip(hand.player_ids, stacks, strict=True):
        assert seats[player_id] == stack, (table.pk, hand.pk, player_id)


VARIANTS = [
    {"variant": "NT", "rake_bps": 500, "rake_cap": 150},
    {"variant": "FT", "rake_bps": 500, "rake_cap": 100},
    {"variant": "PO", "rake_bps": 300, "rake_cap": 200},
    {"variant": "NS", "ante": 50, "rake_bps": 0, "rake_cap": 0},
]


@pytest.mark.slow
@pytest.mark.xdist_group("tables")
@pytest.mark.django_db(transaction=True)
def test_bots_on_four_tables_keep_the_money_straight(auth_client, table, player):
    rng = random.Random(20250101)
    funding = 1_000_000
    house_before = money.house_rake_account(currency="CHIPS").balance
    tables, bots = [], {}
    for i, params in enumerate(VARIANTS):
        t = table(name=f"bots-{params['variant']}", small_blind=50, big_blind=100,
                  min_buy_in=2_000, max_buy_in=6_000, **params)  # fmt: skip
        clients = [auth_client(player(amount=funding)) for _ in range(3)]
        seat_three(clients, t.pk, buy_in=3_000 + 1_000 * i)
        tables.append(t)
        bots[t.pk] = clients
    # One thread per table: tables are independent (each command locks only its table).
    # ~60 s on an idle machine; the deadline only stops a hung run on a very loaded one.
    target = 200
    deadline = time.monotonic() + 240
    errors: list[BaseException] = []

    def play(t: Table, seed: int) -> None:
        table_rng = random.Random(seed)
        try:
            steps = 0
            while time.monotonic() < deadline and not errors:
                if steps % 20 == 0 and Hand.objects.filter(table__in=tables).count() >= target:
                    break
                if not bot_step(bots[t.pk], t.pk, table_rng):
                    top_up_broke(bots[t.pk], t.pk, t)
                steps += 1
                if steps % 97 == 0:
                    stakes_match_engine(t)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(t, rng.randrange(2**32))) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]
    # Stop dealing and let every running hand end, then check everything at rest.
    for t in tables:
        table_pause(table_id=t.pk, actor=staff_actor(None))
        while bot_step(bots[t.pk], t.pk, rng):
            pass
        t.refresh_from_db()
        assert t.current_hand_id is None
        stakes_match_engine(t)

    hands = Hand.objects.filter(table__in=tables)
    played = hands.count()
    assert played >= target, played
    assert not hands.filter(ended_at__isnull=True).exists()
    assert HandSummary.objects.filter(table__in=tables).count() == played

    report = ledger_audit()
    assert report.ok, report.render()
    chains, chain_problems = verify_chains()
    settled, settlement_problems = verify_settlements()
    assert chain_problems == [] and settlement_problems == []
    assert settled >= played and chains > played

    results = PlayerHandResult.objects.filter(table__in=tables)
    rake = HandSummary.objects.filter(table__in=tables).aggregate(s=Sum("rake"))["s"] or 0
    assert (results.aggregate(s=Sum("net"))["s"] or 0) + rake == 0
    assert money.house_rake_account(currency="CHIPS").balance - house_before == rake
    assert rake > 0
    for t in tables:
        for client in bots[t.pk]:
            user = client.user
            wallet = money.player_cash_account(player_id=user.pk, currency="CHIPS").balance
            seat = Seat.objects.get(table=t, player=user)
            stake = Account.objects.get(pk=seat.stake_account_id).balance
            net = results.filter(player=user).aggregate(s=Sum("net"))["s"] or 0
            assert wallet + stake == funding + net, (t.variant, user.pk)
    # every variant really played, with showdowns
    for t in tables:
        assert hands.filter(table=t).count() >= 30, t.variant
        assert HandSummary.objects.filter(table=t).exclude(shown={}).exists(), t.variant
