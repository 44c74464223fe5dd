"""The staff hand view: a hand with every card, its deal checked and its ledger transfers."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from handhistory.services import hand_view_full_record
from ledger.models import Transfer
from poker import selectors
from poker.fairness import deal_verify, hand_fairness


def staff_hand_view(*, staff: AbstractBaseUser, hand_id: int) -> dict[str, Any]:
    """Hand ``hand_id`` as staff see it (every card), the deal proof recomputed here
    (``verification``: None when it was not dealt from a committed seed) and the ledger transfers referencing it (``hand:<id>``: pots and rake).

    Seeing every card is a staff act worth knowing about: it passes the every-card rule
    (``poker.full_view``: support and up, a finished hand, not to a member seated at its
    table) and writes ``hand.view_full`` on the staff log (each view, with the players of
    the hand), before anything of the hand is read.
    """
    hand_view_full_record(hand_id=hand_id, staff_id=staff.pk)
    detail = selectors.hand_detail(hand_id=hand_id, viewer_id=staff.pk, full=True)
    proof = hand_fairness(hand_id=hand_id, viewer_id=staff.pk, full=True)
    verification = None
    if proof["algorithm"] and proof["server_seed"]:
        verification = deal_verify(
            server_seed=proof["server_seed"],
            commitment=proof["commitment"],
            client_seeds=proof["client_seeds"],
            nonce=proof["nonce"],
            variant=proof["variant"],
            dealt=proof["dealt"],
        )
    transfers = list(
        Transfer.objects.filter(reference=f"hand:{hand_id}")
        .select_related("debit_account", "credit_account")
        .order_by("created_at", "code", "id")
    )
    return {"detail": detail, "proof": proof, "verification": verification, "transfers": transfers}
