"""Fixtures of the fraud review tests: reviewers, players and cases opened by the analysis."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from fraud.models import Case
from fraud.services import Suspicion, cases_sync


@pytest.fixture
def reviewer(make_user: Callable[..., Any]) -> Callable[..., Any]:
    """A staff member with the fraud permissions (``act=False``: may only view cases)."""

    def make(*, act: bool = True) -> Any:
        if act:  # the risk role: fraud cases and the corrections they make
            return make_user(role="risk")
        user = make_user(staff=True)
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label="fraud", codename="view_case")
        )
        return type(user).objects.get(pk=user.pk)  # fresh: permissions are cached per object

    return make


def suspicion(players: Any, *, score: float = 5.0, kinds: tuple[str, ...] = ("chip_dumping",),
              ring: bool = False, hand_ids: tuple[int, ...] = (11, 12)) -> Suspicion:  # fmt: skip
    ids = tuple(sorted(u.pk for u in players))
    return Suspicion(
        players=ids, kinds=kinds, score=score, ring=ring, hands_together=40,
        features={kinds[0]: {"flow_bb_per_100": {"value": 55.0, "baseline": 0.3}}},
        evidence=[{"hand_id": h, "kind": kinds[0], "weight": 10.0 - k, "reason": f"hand {h}"}
                  for k, h in enumerate(hand_ids)],
        chip_flow=[{"from": ids[0], "to": ids[1], "big_blinds": 120.0, "amounts": {"CHIPS": 12_000}}],
        pairs=[{"a": a, "b": b, "score": score, "kinds": list(kinds)}
               for i, a in enumerate(ids) for b in ids[i + 1:]],
        context={"shared_ips": 0, "shared_devices": 0},
    )  # fmt: skip


@pytest.fixture
def open_case(make_user: Callable[..., Any]) -> Callable[..., Case]:
    """A case opened by the analysis about two (or ``n``) new players."""

    def make(n: int = 2, **kw: Any) -> Case:
        players = [make_user() for _ in range(n)]
        s = suspicion(players, ring=n > 2, **kw)
        cases_sync(suspicions=[s])
        return Case.objects.get(subject=s.subject, status="open")

    return make
