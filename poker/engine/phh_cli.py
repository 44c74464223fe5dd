"""Replay PHH hand histories from the command line: ``python -m poker.engine.phh_cli``.

Usage: ``phh_cli [--json] [--check] PATH [PATH ...]``; a PATH is a ``.phh`` file or a
folder searched recursively (in sorted order). Each hand prints its finishing stacks in
the file's own units (ints when whole). With ``--json`` every hand is one JSON object per
line on stdout, ``{"path": ..., "finishing_stacks": [...]}`` or ``{"path": ..., "error":
...}``. With ``--check`` the stacks are compared with each file's ``finishing_stacks``
(JSON lines gain ``"expected"`` and ``"match"``) and a summary line is printed (on stderr
with ``--json``, so stdout stays one object per hand).

Exit status: 0 when every hand replayed (and, with ``--check``, matched), 1 otherwise
(including when no ``.phh`` file was found).
Django's ``manage.py replay_phh`` is a thin wrapper around :func:`main`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Protocol

from poker.engine.errors import EngineError
from poker.engine.phh import PhhError, load, replay_hand, to_file_units


class Writer(Protocol):
    """Anything with ``write(text)``: a text stream or Django's ``OutputWrapper``."""

    def write(self, text: str, /) -> object:
        """Write ``text``."""
        ...


@dataclass(frozen=True, slots=True)
class Outcome:
    """One replayed hand: stacks in file units, what the file expects, or an error."""

    path: str
    stacks: tuple[int | Decimal, ...] | None = None
    expected: tuple[int | Decimal, ...] | None = None
    error: str | None = None

    @property
    def matches(self) -> bool:
        """True when replayed and equal to the file's finishing stacks (if it has any)."""
        return self.error is None and (self.expected is None or self.stacks == self.expected)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command-line options, shared with the Django management command."""
    parser.add_argument("--json", action="store_true", help="one JSON object per hand")
    parser.add_argument(
        "--check", action="store_true", help="compare with each file's finishing_stacks"
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".phh file or folder")


def phh_files(paths: Sequence[str]) -> Iterator[Path]:
    """The ``.phh`` files named by ``paths``, folders searched recursively in sorted order."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.phh") if p.is_file())
        else:
            yield path


def replay_file(path: Path) -> Outcome:
    """Replay one file, turning every failure into an :class:`Outcome` with an error."""
    try:
        hand = load(path)
        state, _ = replay_hand(hand)
    except (EngineError, PhhError) as exc:
        return Outcome(path=str(path), error=f"{exc.code}: {exc.message}")
    except (OSError, ValueError) as exc:
        return Outcome(path=str(path), error=f"{type(exc).__name__}: {exc}")
    stacks = tuple(to_file_units(s, hand.scale) for s in state.stacks)
    expected = None
    if hand.finishing_stacks is not None:
        expected = tuple(to_file_units(s, hand.scale) for s in hand.finishing_stacks)
    return Outcome(path=str(path), stacks=stacks, expected=expected)


def _numbers(values: Sequence[int | Decimal]) -> str:
    # Exact decimal text, never a float: 1259450.25 stays 1259450.25.
    return "[" + ", ".join(str(v) for v in values) + "]"


def json_line(outcome: Outcome, check: bool) -> str:
    """The ``--json`` line of one hand."""
    head = '{"path": ' + json.dumps(outcome.path)
    if outcome.error is not None:
        return head + ', "error": ' + json.dumps(outcome.error) + "}"
    assert outcome.stacks is not None
    line = head + ', "finishing_stacks": ' + _numbers(outcome.stacks)
    if check:
        expected = "null" if outcome.expected is None else _numbers(outcome.expected)
        line += ', "expected": ' + expected + ', "match": ' + json.dumps(outcome.matches)
    return line + "}"


def text_line(outcome: Outcome, check: bool) -> str:
    """The plain-text line of one hand."""
    if outcome.error is not None:
        return f"{outcome.path}: ERROR {outcome.error}"
    assert outcome.stacks is not None
    line = f"{outcome.path}: {' '.join(str(v) for v in outcome.stacks)}"
    if check and not outcome.matches:
        assert outcome.expected is not None
        line += f"  MISMATCH expected {' '.join(str(v) for v in outcome.expected)}"
    return line


def main(
    argv: list[str] | None = None, out: Writer | None = None, err: Writer | None = None
) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = argparse.ArgumentParser(prog="replay_phh", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run(args.paths, as_json=args.json, check=args.check, out=out, err=err)


def run(paths: Sequence[str], *, as_json: bool, check: bool, out: Writer, err: Writer) -> int:
    """Replay every hand under ``paths`` and print the results; returns the exit status."""
    counts = {"hands": 0, "matched": 0, "mismatched": 0, "errors": 0, "unchecked": 0}
    for path in phh_files(paths):
        outcome = replay_file(path)
        counts["hands"] += 1
        if outcome.error is not None:
            counts["errors"] += 1
        elif outcome.expected is None:
            counts["unchecked"] += 1
        elif outcome.matches:
            counts["matched"] += 1
        else:
            counts["mismatched"] += 1
        out.write((json_line(outcome, check) if as_json else text_line(outcome, check)) + "\n")
    failed = counts["errors"] > 0 or (check and counts["mismatched"] > 0)
    if check:
        summary = (
            f"{counts['hands']} hands: {counts['matched']} matched, "
            f"{counts['mismatched']} mismatched, {counts['errors']} errors, "
            f"{counts['unchecked']} without finishing_stacks"
        )
        (err if as_json else out).write(summary + "\n")
    return 1 if failed or not counts["hands"] else 0


if __name__ == "__main__":
    sys.exit(main())
