"""Replay PHH hand histories from the command line: ``python -m poker.engine.phh_cli``.

Usage: ``phh_cli [--json] [--check] PATH [PATH ...]``; a PATH is a ``.phh`` file (one
hand), a ``.phhs`` file (many: TOML tables ``[1]``, ``[2]``, ..., what the site's PHH export
writes; each hand is reported as ``PATH[name]``) or a folder searched recursively for both
(in sorted order). Each hand prints its finishing stacks in
the file's own units (ints when whole). With ``--json`` every hand is one JSON object per
line on stdout, ``{"path": ..., "finishing_stacks": [...]}`` or ``{"path": ..., "error":
...}``. With ``--check`` the stacks are compared with each file's ``finishing_stacks``
(JSON lines gain ``"expected"`` and ``"match"``) and a summary line is printed (on stderr
with ``--json``, so stdout stays one object per hand).

Exit status: 0 when every hand replayed (and, with ``--check``, matched), 1 otherwise
(including when no hand was found).
Django's ``manage.py replay_phh`` is a thin wrapper around :func:`main`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Protocol

from poker.engine.errors import EngineError
from poker.engine.phh import PhhHand, load, loads_all, parse, replay_hand, to_file_units


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
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".phh or .phhs file, or folder")


def phh_files(paths: Sequence[str]) -> Iterator[Path]:
    """The ``.phh`` and ``.phhs`` files named by ``paths``, folders searched recursively in
    sorted order."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.suffix in (".phh", ".phhs") and p.is_file())
            yield from sorted(found)
        else:
            yield path


def _failed(name: str, exc: Exception) -> Outcome:
    if isinstance(exc, EngineError):
        return Outcome(path=name, error=f"{exc.code}: {exc.message}")
    return Outcome(path=name, error=f"{type(exc).__name__}: {exc}")


def _replay(name: str, read: Callable[[], PhhHand]) -> Outcome:
    """Read and replay one hand; any failure becomes an :class:`Outcome` with an error."""
    try:
        hand = read()
        state, _ = replay_hand(hand)
    except (EngineError, OSError, ValueError) as exc:
        return _failed(name, exc)
    stacks = tuple(to_file_units(s, hand.scale) for s in state.stacks)
    expected = None
    if hand.finishing_stacks is not None:
        expected = tuple(to_file_units(s, hand.scale) for s in hand.finishing_stacks)
    return Outcome(path=name, stacks=stacks, expected=expected)


def replay_file(path: Path) -> Iterator[Outcome]:
    """Replay every hand of one file: a ``.phh`` holds one, a ``.phhs`` one per table. A
    broken hand is its own error; a file that cannot be read at all is one error."""
    if path.suffix != ".phhs":
        yield _replay(str(path), partial(load, path))
        return
    try:
        hands = loads_all(path.read_text(encoding="utf-8"))
    except (EngineError, OSError, ValueError) as exc:
        yield _failed(str(path), exc)
        return
    if not hands:
        yield Outcome(path=str(path), error="phh_empty: the file holds no hand")
    for name, fields in hands:
        yield _replay(f"{path}[{name}]", partial(parse, fields))


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
    for outcome in (o for path in phh_files(paths) for o in replay_file(path)):
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
