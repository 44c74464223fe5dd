"""`make bench`: runs every ``benchmarks/bench_*.py`` module's ``run()`` and prints figures.

Each module prints its own table and writes ``benchmarks/results/<name>.json``; this
runner also writes everything to ``benchmarks/results/all.json``.
Usage: python -m benchmarks [NAME ...]   (e.g. ``python -m benchmarks evaluator``)
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    names = sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))
    wanted = argv or names
    unknown = set(wanted) - set(names)
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}; have: {', '.join(names)}")
        return 2
    RESULTS.mkdir(exist_ok=True)
    summary: dict[str, object] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": {},
    }
    for name in wanted:
        print(f"\n=== benchmark: {name} ===", flush=True)
        module = importlib.import_module(f"benchmarks.bench_{name}")
        summary["results"][name] = module.run()  # type: ignore[index]  # the summary is a JSON object built here; its values are not typed
    (RESULTS / "all.json").write_text(json.dumps(summary, indent=2))
    print(f"\nAll figures written to {RESULTS / 'all.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
