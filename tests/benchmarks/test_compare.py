"""`make bench-compare`: the base revision runs its own code, every figure gets a ratio.

Speed itself is never asserted here (the figures of a tiny run on a shared machine mean
nothing); these tests prove the machinery the next regression will be seen with.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks import compare

pytestmark = pytest.mark.slow


def test_base_runs_its_own_tree_and_every_figure_gets_a_ratio(tmp_path):
    out = tmp_path / "compare.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.compare", "--base", "HEAD", "--rounds", "1",
         "--benches", "tables", "--size", "tiny", "--json", str(out)],
        cwd=compare.ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    base_path = compare.SCRATCH / compare.git("rev-parse", "HEAD")[:12]
    assert result["base"]["path"] == str(base_path)
    # The venv holds this tree as an editable install: the base must not import from it.
    assert [r["code_root"] for r in result["runs"]["tables"]["base"]] == [str(base_path)]
    assert [r["code_root"] for r in result["runs"]["tables"]["head"]] == [str(compare.ROOT)]
    figures = {f["figure"]: f for f in result["figures"] if f["bench"] == "tables"}
    assert set(figures) == {"actions_per_s", "hands_per_s", "p50_ms", "p99_ms"}
    for name in ("actions_per_s", "p50_ms", "p99_ms"):
        assert figures[name]["ratio"] == round(figures[name]["head"] / figures[name]["base"], 3)
    assert figures["p99_ms"]["better"] == "lower"
    assert figures["actions_per_s"]["better"] == "higher"
    assert result["checks"] == {"tables": {"base": [], "head": []}}
    for name in figures:
        assert any(line.split()[:2] == ["tables", name] for line in done.stdout.splitlines())


def test_the_base_interpreter_has_the_packages_but_not_this_trees_code(tmp_path):
    (tmp_path / "pyproject.toml").write_text((compare.ROOT / "pyproject.toml").read_text())
    python = compare._python_for(tmp_path)

    def imports(module: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([python, "-c", f"import {module}"], cwd=tmp_path,
                              capture_output=True, text=True)  # fmt: skip

    assert imports("django").returncode == 0
    assert imports("uvicorn").returncode == 0
    # This venv's editable install would answer `fraud.admin` from this tree for a base
    # whose fraud has no admin module; the base's interpreter does not see it at all.
    missing = imports("poker")
    assert "ModuleNotFoundError" in missing.stderr


def test_a_base_needing_a_package_this_venv_lacks_gets_its_own_venv(tmp_path):
    pyproject = (compare.ROOT / "pyproject.toml").read_text()
    (tmp_path / "pyproject.toml").write_text(pyproject)
    assert compare._satisfies(tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text(
        pyproject.replace('"Django>=5.2,<5.3",', '"Django>=5.2,<5.3", "no-such-package-xyz>=1",')
    )
    assert not compare._satisfies(tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text(pyproject.replace("Django>=5.2,<5.3", "Django<2"))
    assert not compare._satisfies(tmp_path / "pyproject.toml")


def test_a_recorded_line_fills_the_history_columns_in_their_order():
    header = next(
        row for row in compare.HISTORY.read_text().splitlines() if row.startswith("| date")
    )
    medians = {
        "tables": {"actions_per_s": 751.0, "hands_per_s": 40.0, "p50_ms": 9.5, "p99_ms": 30.0},
        "ws-saturated": {"actions_per_s": 300.0, "p50_ms": 20.0, "p99_ms": 90.0},
        "ws-paced": {"p50_ms": 12.0, "p99_ms": 55.0},
    }
    line = compare.history_line("abc1234", medians, "full", 3)
    cells = dict(zip(header.strip("|").split("|"), line.strip("|").split("|"), strict=True))
    cells = {k.strip(): v.strip() for k, v in cells.items()}
    assert cells["commit"] == "abc1234"
    assert cells["tables actions/s"] == "751.0"
    assert cells["tables p99 ms"] == "30.0"
    assert cells["ws saturated actions/s"] == "300.0"
    assert cells["ws paced p99 ms"] == "55.0"


@pytest.mark.parametrize(
    ("better", "ratio", "expected"),
    [("higher", 0.84, "WORSE"), ("higher", 1.2, "better"), ("lower", 1.37, "WORSE"),
     ("lower", 0.8, "better"), ("lower", 1.02, "same"), ("higher", None, "n/a")],
)  # fmt: skip
def test_the_verdict_reads_each_figure_in_its_own_direction(better, ratio, expected):
    assert compare.verdict({"better": better, "ratio": ratio}) == expected
