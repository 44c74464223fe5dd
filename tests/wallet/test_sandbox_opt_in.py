"""The sandbox gateway (deposits confirmed with no payment) is an explicit opt-in, and
production mode refuses it while real currencies are enabled. Each case runs in a fresh
process, because the settings decide this once, at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A deposit of real money by a player, as far as it goes without a database: the gateway
# is resolved before anything is written. Prints the outcome.
_DEPOSIT = """
import uuid, django
from types import SimpleNamespace
django.setup()
from django.conf import settings
from core.errors import DomainError
from wallet.services import deposit_create
print(settings.BACKENDS_SUMMARY)
try:
    deposit_create(user=SimpleNamespace(pk=1), deposit_id=uuid.uuid4(),
                   amount=1_000_000, currency="EUR")
except DomainError as exc:
    print("refused", exc.status, exc.code, exc.message)
except Exception as exc:  # past the gateway: this database has no tables
    print("reached the database", type(exc).__name__)
"""


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WALLET_") and k not in {"DATABASE_URL", "REDIS_URL"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="0",
        SECRET_KEY="a-production-secret-for-this-test",
        EMBEDDED_DB_PATH=str(tmp_path / "db.sqlite3"),
    )
    env.update(extra)
    return env


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_production_mode_refuses_to_start_with_the_sandbox_for_real_currencies(tmp_path):
    result = _run(_env(tmp_path, WALLET_SANDBOX="1"), "manage.py", "check")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "WALLET_SANDBOX" in result.stderr and "EUR" in result.stderr


def test_production_mode_without_the_opt_in_refuses_sandbox_deposits_of_eur(tmp_path):
    result = _run(_env(tmp_path), "-c", _DEPOSIT)
    assert result.returncode == 0, result.stderr
    banner, outcome = result.stdout.splitlines()[:2]
    assert outcome.startswith("refused 404 unknown_gateway"), outcome
    assert "wallet=no payment gateway" in banner


def test_production_mode_may_run_the_sandbox_for_play_money_only(tmp_path):
    result = _run(_env(tmp_path, WALLET_SANDBOX="1", WALLET_CURRENCIES="CHIPS"), "-c", _DEPOSIT)
    assert result.returncode == 0, result.stderr
    assert "wallet=sandbox gateway" in result.stdout.splitlines()[0]


def test_debug_mode_runs_the_sandbox_by_default_and_says_so(tmp_path):
    result = _run(_env(tmp_path, DEBUG="1"), "-c", _DEPOSIT)
    assert result.returncode == 0, result.stderr
    assert "wallet=sandbox gateway" in result.stdout.splitlines()[0]
    assert result.stdout.splitlines()[1].startswith("reached the database")
