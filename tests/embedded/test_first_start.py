"""What a newcomer sees first (`make run`'s first line) and what an operator runs on an
empty production database (README "Production": the first admin and the first tables)."""

import os
import signal
import subprocess
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from poker.models import Table
from tests.embedded.server import ROOT, embedded_env, free_port


@pytest.mark.slow
def test_make_run_says_which_backends_on_its_first_line(tmp_path: Path):
    # The install step is not under test (and must never touch the suite's virtualenv):
    # a stamp newer than pyproject.toml tells make it is done.
    stamp = tmp_path / "installed"
    stamp.touch()
    env = embedded_env(tmp_path)
    env.pop("MAKEFLAGS", None)
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={free_port()}", f"STAMP={stamp}"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        first = proc.stdout.readline()
        assert first.startswith("Backends: database=SQLite (embedded, "), first
        assert "in-memory channel layer" in first and "Celery eager" in first
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.django_db
def test_create_table_creates_a_first_table_once(capsys):
    args = ["Main 50/100", "--small-blind", "50", "--big-blind", "100",
            "--min-buy-in", "2000", "--max-buy-in", "20000"]  # fmt: skip
    call_command("create_table", *args)
    assert "Table created:" in capsys.readouterr().out
    call_command("create_table", *args)
    assert "Table exists:" in capsys.readouterr().out
    assert Table.objects.filter(name="Main 50/100").count() == 1


@pytest.mark.django_db
def test_create_table_refuses_bad_stakes_and_creates_nothing():
    with pytest.raises(CommandError, match="invalid_stakes"):
        call_command("create_table", "Bad", "--small-blind", "200", "--big-blind", "100",
                     "--min-buy-in", "2000", "--max-buy-in", "20000")  # fmt: skip
    assert not Table.objects.exists()
