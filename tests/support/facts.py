"""A small room of finished hands for the stored-facts tests, and the two ways of
counting its pairs that must agree: from the stored facts, and from the events."""

from __future__ import annotations

import random
import uuid

from fraud.features import PAIR_COUNTERS, aggregate, hand_facts
from fraud.models import PairEvidence, PairStat
from handhistory.exports.records import hand_records
from handhistory.models import Hand
from tests.support.poker import play_hands_with_rebuys


def play_room() -> list[int]:
    """Finished hands of three variants (random legal play: folds, all-ins, showdowns);
    returns their ids."""
    from django.contrib.auth import get_user_model

    from poker.commands.seating import table_create, table_sit
    from tests.support.poker import actor_for, fund, key

    users = []
    for _ in range(4):
        user = get_user_model().objects.create_user(username=f"facts-{uuid.uuid4().hex[:10]}")
        fund(user, 1_000_000)
        users.append(user)
    for name, variant, seated, hands in (("NL", "NT", 4, 14), ("Limit", "FT", 3, 8),
                                         ("PLO", "PO", 3, 6)):  # fmt: skip
        t = table_create(name=name, variant=variant, small_blind=50, big_blind=100,
                         min_buy_in=2_000, max_buy_in=20_000, max_seats=6)  # fmt: skip
        for u in users[:seated]:
            table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
        play_hands_with_rebuys(t, users[:seated], [10_000] * seated, hands, random.Random(hands))
    return finished()


def finished():
    return list(
        Hand.objects.filter(ended_at__isnull=False).order_by("pk").values_list("pk", flat=True)
    )


def expected(hand_ids):
    """Today's path: every hand's facts computed from its events and summed."""
    facts = [hand_facts(hand_id=r.hand_id, player_ids=r.player_ids, usernames=r.usernames,
                        events=r.events) for r in hand_records(hand_ids)]  # fmt: skip
    pairs = {key: (p.hands, *(getattr(p, c) for c in PAIR_COUNTERS))
             for key, p in aggregate(facts).items()}  # fmt: skip
    evidence = sorted((e.player, e.partner, e.kind, e.hand_id, e.weight, e.reason)
                      for f in facts for e in f.evidence)  # fmt: skip
    return pairs, evidence


def counted():
    pairs = {(a, b): rest for a, b, *rest in
             PairStat.objects.values_list("player_id", "partner_id", "hands", *PAIR_COUNTERS)}  # fmt: skip
    evidence = sorted(PairEvidence.objects.values_list(
        "player_id", "partner_id", "kind", "hand_id", "weight", "reason"))  # fmt: skip
    return {k: tuple(v) for k, v in pairs.items()}, evidence
