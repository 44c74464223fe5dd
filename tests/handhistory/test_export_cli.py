"""`manage.py export_hands`: an operator's export into a file, every card, recorded."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from handhistory.exports import FORMATS
from handhistory.exports.records import STAFF, hand_records
from handhistory.models import ExportJob
from tests.support.handhistory import played_by

pytestmark = pytest.mark.django_db


@pytest.fixture
def hands(hands_once):
    """The hands of the module, played once (every test here rolls back)."""
    return hands_once


def export(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("export_hands", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_players_hands_go_to_the_file_with_every_card_and_the_run_is_recorded(
    hands, tmp_path: Path, fmt
):
    target = hands["users"][2]
    path = tmp_path / f"out.{FORMATS[fmt].extension}"
    stdout, stderr = export("--format", fmt, "--player", target.username, "--out", str(path))
    expected = FORMATS[fmt].many(hand_records(played_by(target)), STAFF)
    assert path.read_text(encoding="utf-8") == expected
    (job,) = ExportJob.objects.all()
    assert (job.requester, job.source, job.full, job.status) == (None, "cli", True, "succeeded")
    assert job.hands_done == job.hands_total == len(played_by(target))
    assert job.filters["player"] == target.username
    assert job.size == path.stat().st_size
    assert stdout.startswith(f"Exported {job.hands_done} hands ({job.size} bytes) to {path} in ")
    assert "hand" in stderr and "100%" in stderr  # the progress bar
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no partial file left


def test_all_hands_of_one_table_between_dates(hands, tmp_path: Path):
    path = tmp_path / "t.phhs"
    export("--format", "phh", "--all", "--table", str(hands["table"].pk),
           "--since", "2000-01-01", "--until", "2999-12-31", "--out", str(path))  # fmt: skip
    assert path.read_text() == FORMATS["phh"].many(hand_records(hands["ids"]), STAFF)
    everything = tmp_path / "all.phhs"
    export("--format", "phh", "--all", "--out", str(everything), "--no-progress")
    assert everything.read_text() == FORMATS["phh"].many(
        hand_records(sorted(hands["ids"] + hands["other_ids"])), STAFF
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "doc", "--all"], "Unknown export format 'doc'"),
        (["--format", "phh", "--player", "nobody-by-that-name"], "No player 'nobody-by-that-name'"),
        (["--format", "phh", "--all", "--since", "2025-02-01", "--until", "2025-01-01"],
         "must be before until"),
        (["--format", "phh", "--all", "--since", "soon"], "since must be an ISO 8601 date"),
        (["--format", "phh", "--all", "--table", "999999999"], "No table 999999999"),
        (["--format", "phh", "--all", "--player", "x"], "not allowed with argument"),
        (["--format", "phh"], "one of the arguments --player --all is required"),
    ],
)  # fmt: skip
def test_refusals_are_command_errors_and_write_nothing(
    hands, tmp_path: Path, args: list[str], message: str
):
    path = tmp_path / "never.phhs"
    with pytest.raises(CommandError, match=message):
        export(*args, "--out", str(path))
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []
    assert ExportJob.objects.count() == 0


def test_a_file_that_cannot_be_written_fails_the_command_and_the_job(hands, tmp_path: Path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    with pytest.raises(CommandError, match=r"Could not write .*out\.phhs: Not a directory"):
        export("--format", "phh", "--all", "--out", str(blocker / "out.phhs"))
    (job,) = ExportJob.objects.all()
    assert (job.source, job.status) == ("cli", "failed")
    assert job.error.startswith("The export file could not be written or stored")
