"""The tournament's own stream in the event store: ``tournament-<id>``, hash-chained,
read back by its registered reader and verified by ``verify_event_store``."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import transaction

from handhistory.store import NewEvent, events_append, stream_events
from handhistory.verification import verify_chains, verify_stream
from tournaments.services import tournament_cancel, tournament_register, tournament_unregister

pytestmark = pytest.mark.django_db


def test_the_stream_records_creation_registrations_and_the_cancellation_in_order(
    make_tournament, funded, director
):
    tournament = make_tournament()
    ann, bob = funded(), funded()
    tournament_register(tournament_id=tournament.pk, player=ann)
    tournament_register(tournament_id=tournament.pk, player=bob)
    tournament_unregister(tournament_id=tournament.pk, player=ann)
    tournament_cancel(tournament_id=tournament.pk, staff_user=director, reason="too few")

    rows = stream_events(f"tournament-{tournament.pk}")

    assert [(r.seq, r.type) for r in rows] == [
        (1, "TournamentCreated"),
        (2, "PlayerRegistered"),
        (3, "PlayerRegistered"),
        (4, "PlayerUnregistered"),
        (5, "TournamentCancelled"),
    ]
    assert rows[0].payload["buy_in"] == 1_000 and rows[0].payload["staff_id"] == director.pk
    assert rows[1].payload == {
        "user_id": ann.pk,
        "username": ann.username,
        "entry": 1,
        "buy_in": 1_000,
        "fee": 100,
        "bounty": 200,
    }
    assert rows[3].payload["refunded"] == 1_100
    assert rows[4].payload == {
        "reason": "too few",
        "staff_id": director.pk,
        "refunded_entries": 1,
        "refunded": 1_100,
    }
    assert verify_stream(rows) == []
    assert verify_chains()[1] == []
    call_command("verify_event_store", stdout=io.StringIO())


def test_an_event_the_tournament_code_cannot_read_is_reported(make_tournament):
    tournament = make_tournament()
    with transaction.atomic():
        events_append(
            stream=tournament.stream,
            events=[NewEvent(type="PlayerTeleported", version=1, payload={})],
        )

    problems = verify_stream(stream_events(tournament.stream))

    assert problems == [
        f"tournament-{tournament.pk}#2: unknown tournament event type 'PlayerTeleported'"
    ]


@pytest.mark.parametrize(
    ("version", "payload", "problem"),
    [
        (2, {"reason": "x", "staff_id": 1, "refunded_entries": 0, "refunded": 0}, "version 2"),
        (1, {"reason": "x"}, "fields"),
    ],
)
def test_a_tournament_event_of_another_version_or_shape_is_reported(
    make_tournament, version, payload, problem
):
    tournament = make_tournament()
    with transaction.atomic():
        events_append(
            stream=tournament.stream,
            events=[NewEvent(type="TournamentCancelled", version=version, payload=payload)],
        )

    (found,) = verify_stream(stream_events(tournament.stream))

    assert problem in found
