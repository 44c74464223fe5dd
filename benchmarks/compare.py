"""`make bench-compare BASE=<rev>`: the table and WebSocket benches on a base tree and on
this one, alternately, on the same PostgreSQL and Redis; prints per figure the medians and
the ratio head/base. `make bench-record`: the same benches on this tree alone, appended to
the committed history ``benchmarks/results/history.md``.

The base revision is extracted (``git archive``) into ``var/bench-compare/<sha>/`` and runs
with that folder as its working directory and first on ``sys.path``, under an interpreter
that cannot see this tree's code: this venv holds this tree as an editable install, whose
finder would hand the base any module it lacks (see ``_python_for``). Each run is a fresh process on a
fresh database (the benches recreate theirs); rounds alternate base-head, head-base, so a
machine that drifts weighs on both sides alike.

Usage: python -m benchmarks.compare --base REV [--rounds N] [--benches "tables ws"] [--size S]
       python -m benchmarks.compare --record [--rounds N] [--size S]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
HISTORY = RESULTS / "history.md"
SCRATCH = ROOT / "var" / "bench-compare"

#: What each bench name runs: the module, its extra arguments, and the figures compared
#: with the direction that is better. The paced WebSocket run's actions/s is the load the
#: bots offer (their think time), not a result, so it is not compared.
# A table, one row per line: the formatter leaves it as written (fmt: skip).
BENCHES: dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "tables": (
        "benchmarks.bench_tables",
        (),
        (("actions_per_s", "higher"), ("hands_per_s", "higher"), ("p50_ms", "lower"),
         ("p99_ms", "lower")),
    ),
    "ws-saturated": (
        "benchmarks.bench_ws",
        ("--think-ms", "0"),
        (("actions_per_s", "higher"), ("p50_ms", "lower"), ("p99_ms", "lower")),
    ),
    "ws-paced": (
        "benchmarks.bench_ws",
        ("--think-ms", "1000"),
        (("p50_ms", "lower"), ("p99_ms", "lower")),
    ),
}  # fmt: skip
ALIASES = {"ws": ("ws-saturated", "ws-paced")}

#: Bench sizes. ``full`` is each bench's own default (what the notes quote); ``tiny`` only
#: proves the machinery (the WebSocket bench measures after a 3 s warm-up).
# A table, one row per line: the formatter leaves it as written (fmt: skip).
SIZES: dict[str, dict[str, tuple[str, ...]]] = {
    "tiny": {"benchmarks.bench_tables": ("--tables", "2", "--seconds", "3", "--workers", "1",
                                         "--threads", "1"),
             "benchmarks.bench_ws": ("--tables", "2", "--seconds", "5", "--workers", "1")},
    "moderate": {"benchmarks.bench_tables": ("--tables", "30", "--seconds", "10"),
                 "benchmarks.bench_ws": ("--tables", "30", "--seconds", "20")},
    "full": {"benchmarks.bench_tables": (), "benchmarks.bench_ws": ()},
}  # fmt: skip

#: Runs in the bench's interpreter before the bench: notes where ``poker`` was imported
#: from (the proof that a base run ran the base's code), then runs the module as
#: ``python -m`` would.
PRELUDE = """
import os, runpy, sys
import poker
with open(os.environ["BENCH_COMPARE_CODE_FILE"], "w") as f:
    f.write(os.path.dirname(os.path.dirname(os.path.abspath(poker.__file__))))
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


@dataclass(frozen=True)
class Tree:
    """A source tree to bench: its label, commit, folder and interpreter."""

    label: str
    commit: str
    path: Path
    python: str


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def head_tree() -> Tree:
    commit = git("rev-parse", "--short=10", "HEAD")
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += "-dirty"
    return Tree("head", commit, ROOT, sys.executable)


def base_tree(rev: str) -> Tree:
    """The tree of ``rev`` under ``var/bench-compare/<sha>/`` (extracted once) with an
    interpreter that has its dependencies."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    path = SCRATCH / sha[:12]
    if not (path / "manage.py").exists():
        path.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "archive", sha], cwd=ROOT, check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(path, filter="data")
    return Tree("base", sha[:10], path, _python_for(path))


def _python_for(tree: Path) -> str:
    """An interpreter for ``tree`` that cannot see this tree's code. When this venv has
    every runtime dependency of ``tree``'s pyproject.toml: a bare venv that adds this
    venv's packages as a plain path, so the editable install's finder (loaded by a .pth
    file there, which a plain path does not run) never hands the base a module it lacks
    from this tree. Otherwise: a venv of its own beside the tree, made once."""
    if _satisfies(tree / "pyproject.toml"):
        venv = SCRATCH / "venv-shared"
        python = venv / "bin" / "python"
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
            packages = subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            (Path(packages) / "head-venv.pth").write_text(sysconfig.get_path("purelib") + "\n")
        return str(python)
    venv = tree / ".venv"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"[compare] the base needs other packages: installing them in {venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "-e", str(tree)], check=True
        )
    return str(python)


def _satisfies(pyproject: Path) -> bool:
    import tomllib
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    for line in tomllib.loads(pyproject.read_text())["project"]["dependencies"]:
        requirement = Requirement(line)
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            return False
        if not requirement.specifier.contains(installed, prereleases=True):
            return False
    return True


def run_bench(tree: Tree, bench: str, size: str, out: Path) -> dict[str, Any]:
    """One run of ``bench`` on ``tree`` in a fresh process; its figures and where its code
    came from."""
    module, extra, _ = BENCHES[bench]
    code_file = out.with_suffix(".code")
    # Not traced by a coverage run that started the comparison (the test suite's): tracing
    # would slow the bench, and the base's files would land in the suite's report.
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("COV_CORE_", "COVERAGE_"))},
        "PYTHONPATH": str(tree.path),
        "BENCH_COMPARE_CODE_FILE": str(code_file),
        # Its own database names, so a `make bench` elsewhere on the server cannot drop them.
        "BENCH_DB_SUFFIX": f"_cmp{os.getpid()}",
    }
    argv = [tree.python, "-c", PRELUDE, module, *SIZES[size][module], *extra, "--json", str(out)]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=tree.path, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not out.exists():
        raise SystemExit(
            f"{bench} on {tree.label} ({tree.commit}) failed:\n{done.stdout}\n{done.stderr}"
        )
    figures: dict[str, Any] = json.loads(out.read_text())
    figures["code_root"] = code_file.read_text()
    print(
        f"[compare] {bench:<12} {tree.label} {tree.commit}: "
        + ", ".join(f"{name} {figures.get(name)}" for name, _ in BENCHES[bench][2])
        + f" ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    return figures


def expand(names: list[str]) -> list[str]:
    benches = [b for name in names for b in ALIASES.get(name, (name,))]
    unknown = sorted(set(benches) - set(BENCHES))
    if unknown:
        raise SystemExit(
            f"unknown bench(es): {', '.join(unknown)}; have: tables, ws, {', '.join(BENCHES)}"
        )
    return benches


def _median(values: list[Any]) -> float | None:
    numbers = [v for v in values if v is not None]
    return round(statistics.median(numbers), 2) if numbers else None


def _checks(runs: list[dict[str, Any]]) -> list[str]:
    """What went wrong in the runs that the figures alone would hide."""
    wrong = set()
    for run in runs:
        if run.get("errors"):
            wrong.add("command errors")
        if run.get("verify_event_store_ok") is False or run.get("ledger_audit_ok") is False:
            wrong.add("verify/audit failed")
        if run.get("client_failures"):
            wrong.add("client failures")
    return sorted(wrong)


def compare(base: Tree, head: Tree, benches: list[str], rounds: int, size: str) -> dict[str, Any]:
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        b: {"base": [], "head": []} for b in benches
    }
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        for number in range(rounds):
            order = (base, head) if number % 2 == 0 else (head, base)
            for bench in benches:
                for tree in order:
                    out = Path(tmp) / f"{bench}-{tree.label}-{number}.json"
                    runs[bench][tree.label].append(run_bench(tree, bench, size, out))
    figures = []
    for bench in benches:
        for name, better in BENCHES[bench][2]:
            b = _median([r.get(name) for r in runs[bench]["base"]])
            h = _median([r.get(name) for r in runs[bench]["head"]])
            figures.append(
                {
                    "bench": bench,
                    "figure": name,
                    "better": better,
                    "base": b,
                    "head": h,
                    "ratio": round(h / b, 3) if b and h is not None else None,
                }
            )
    return {
        "base": {"commit": base.commit, "path": str(base.path), "python": base.python},
        "head": {"commit": head.commit, "path": str(head.path), "python": head.python},
        "size": size,
        "rounds": rounds,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "figures": figures,
        "checks": {b: {side: _checks(runs[b][side]) for side in ("base", "head")} for b in benches},
        "runs": runs,
    }


def verdict(figure: dict[str, Any]) -> str:
    """Whether head is better or worse than base by more than 5%, read in the figure's
    direction; smaller moves are within a shared machine's noise."""
    ratio = figure["ratio"]
    if ratio is None:
        return "n/a"
    gain = ratio if figure["better"] == "higher" else 1 / ratio if ratio else float("inf")
    if gain > 1.05:
        return "better"
    if gain < 0.95:
        return "WORSE"
    return "same"


def table(result: dict[str, Any]) -> str:
    lines = [
        f"base {result['base']['commit']} vs head {result['head']['commit']}: size "
        f"{result['size']}, {result['rounds']} round(s), medians",
        f"{'bench':<13}{'figure':<15}{'better':<8}{'base':>10}{'head':>10}{'head/base':>11}  verdict",
    ]
    for f in result["figures"]:
        ratio = "-" if f["ratio"] is None else f"{f['ratio']:.3f}"
        lines.append(
            f"{f['bench']:<13}{f['figure']:<15}{f['better']:<8}{f['base']!s:>10}"
            f"{f['head']!s:>10}{ratio:>11}  {verdict(f)}"
        )
    for bench, sides in result["checks"].items():
        for side, wrong in sides.items():
            if wrong:
                lines.append(f"! {bench} on {side}: {', '.join(wrong)}")
    return "\n".join(lines)


def record(head: Tree, rounds: int, size: str) -> str:
    """Runs tables and both WebSocket benches on this tree and appends their medians to
    the history; returns the line."""
    medians: dict[str, dict[str, float | None]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-record-") as tmp:
        for bench in expand(["tables", "ws"]):
            runs = [
                run_bench(head, bench, size, Path(tmp) / f"{bench}-{n}.json") for n in range(rounds)
            ]
            medians[bench] = {n: _median([r.get(n) for r in runs]) for n, _ in BENCHES[bench][2]}
    line = history_line(head.commit, medians, size, rounds)
    with HISTORY.open("a") as history:
        history.write(line + "\n")
    return line


def history_line(
    commit: str, medians: dict[str, dict[str, float | None]], size: str, rounds: int
) -> str:
    """The history's row for these medians, in the columns of its header."""
    t, sat, paced = medians["tables"], medians["ws-saturated"], medians["ws-paced"]
    return (
        f"| {time.strftime('%Y-%m-%d', time.gmtime())} | {commit} | "
        f"{t['actions_per_s']} | {t['p50_ms']} | {t['p99_ms']} | {sat['actions_per_s']} | "
        f"{sat['p99_ms']} | {paced['p50_ms']} | {paced['p99_ms']} | "
        f"`make bench-record`, size {size}, median of {rounds}, {os.cpu_count()} cores |"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", help="the revision to compare against (a commit, tag, branch)")
    parser.add_argument(
        "--record", action="store_true", help="append this tree's figures to the history"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--benches", default="tables ws", help='e.g. "tables ws" or "ws-paced"')
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument(
        "--json", help="where to write the comparison (default results/compare-<base>-<head>.json)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    head = head_tree()
    if args.record:
        print(record(head, args.rounds, args.size))
        print(f"appended to {HISTORY.relative_to(ROOT)}: commit it with the note")
        return 0
    if not args.base:
        parser.error("--base REV (or --record) is required")
    base = base_tree(args.base)
    result = compare(base, head, expand(args.benches.split()), args.rounds, args.size)
    path = Path(args.json) if args.json else RESULTS / f"compare-{base.commit}-{head.commit}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2))
    print(table(result))
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
