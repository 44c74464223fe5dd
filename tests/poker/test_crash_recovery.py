"""Kill the server in the middle of a hand, start it again: the hand continues from its
events, and at the end stacks, ledger and event store agree."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from ledger.models import Account
from poker.models import Hand, Seat

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`manage.py serve` as a real subprocess on the test database."""

    def __init__(self):
        db = settings.DATABASES["default"]
        self.port = _free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "DEBUG": "1",
        }
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(self.port)],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("server did not start")

    def kill(self):
        """SIGKILL the server and everything it started: a crash, no graceful shutdown."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        if self.proc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def call(self, method, path, token, body=None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={
                "Authorization": f"Token {token}",
                "Content-Type": "application/json",
                "Idempotency-Key": uuid.uuid4().hex,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())


def _act_as_turn_holder(server, table_id, tokens, prefer):
    """The player to act takes ``prefer`` if legal (else check/call); returns the hand id."""
    _, view = server.call("GET", f"/api/v1/tables/{table_id}/state/", tokens[0])
    actor_seat = view["hand"]["actor_seat"]
    token = next(
        t for t in tokens
        if server.call("GET", f"/api/v1/tables/{table_id}/state/", t)[1]["you"]["seat"] == actor_seat
    )  # fmt: skip
    mine = server.call("GET", f"/api/v1/tables/{table_id}/state/", token)[1]["you"]["legal_actions"]
    action = (
        prefer if prefer in mine["actions"] else ("check" if "check" in mine["actions"] else "call")
    )
    status, body = server.call(
        "POST", f"/api/v1/tables/{table_id}/actions/", token, {"action": action}
    )
    assert status == 200, body
    return view["hand"]["id"]


def test_hand_survives_a_server_kill_and_settles_consistently(table, player):
    t = table()
    users = [player(), player()]
    tokens = [Token.objects.create(user=u).key for u in users]
    server = Server()
    try:
        server.start()
        for token in tokens:
            status, body = server.call(
                "POST", f"/api/v1/tables/{t.pk}/sit/", token, {"buy_in": 10_000}
            )
            assert status in (200, 201), body
        hand_id = _act_as_turn_holder(server, t.pk, tokens, "call")
        hole_before = {
            tok: server.call("GET", f"/api/v1/tables/{t.pk}/state/", tok)[1]["you"]["hole_cards"]
            for tok in tokens
        }

        server.kill()  # mid-hand, no graceful shutdown
        server.start()

        status, view = server.call("GET", f"/api/v1/tables/{t.pk}/state/", tokens[0])
        assert status == 200
        assert view["hand"]["id"] == hand_id
        for tok in tokens:
            assert (
                server.call("GET", f"/api/v1/tables/{t.pk}/state/", tok)[1]["you"]["hole_cards"]
                == hole_before[tok]
            )
        # Play the hand out by checking/calling to showdown.
        while Hand.objects.get(pk=hand_id).ended_at is None:
            _act_as_turn_holder(server, t.pk, tokens, "check")
    finally:
        server.stop()

    call_command("verify_event_store")
    stakes = sum(
        Account.objects.get(pk=s.stake_account_id).balance for s in Seat.objects.filter(table=t)
    )
    assert stakes == 20_000  # no rake at this table: every chip is still on it
