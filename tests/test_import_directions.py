"""The layers import one way (docs/architecture.md, "Layers and import directions"): the
pure engine at the bottom, then core <- staff <- ledger <- wallet <- handhistory <- poker
<- fraud <- audit <- backoffice <- config. Every module of every package is read with
``ast``: its imports (lazy ones in functions included) and the models it names by string
(``"app.Model"`` in a relation or ``apps.get_model``). Nothing may reach a higher layer;
there are no exceptions.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Layer of each top-level package, bottom first; ``poker.engine`` is its own bottom layer.
ORDER = (
    "engine", "core", "staff", "ledger", "wallet", "handhistory", "poker", "tournaments", "fraud",
    "audit",
    "backoffice", "config",
)  # fmt: skip
LAYERS = {name: rank for rank, name in enumerate(ORDER)}
PACKAGES = ORDER[1:]

#: ``"app.Model"`` as Django names a model by string (a capital: ``"audit.run"`` is a task).
MODEL_NAME = re.compile(r"^([a-z_]+)\.([A-Z][A-Za-z0-9]*)$")


def layer_of(module: str) -> str | None:
    if module == "poker.engine" or module.startswith("poker.engine."):
        return "engine"
    top = module.split(".")[0]
    return top if top in LAYERS else None


def modules() -> list[tuple[str, Path]]:
    """(dotted module, path) of every project module outside migrations."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found.append((module.removesuffix(".__init__"), path))
    return found


def imports() -> list[tuple[str, str, str]]:
    """(importing module, imported module, file:line) for every project module."""
    found = []
    for module, path in modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            found.extend((module, name, where) for name in names)
    return found


def models_named(source: str) -> list[tuple[str, int]]:
    """(app label, line) of each model ``source`` names by string: a ``"app.Model"``
    literal, or ``get_model("app", ...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if (match := MODEL_NAME.match(node.value)) and match[1] in LAYERS:
                found.append((match[1], node.lineno))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "get_model"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((str(node.args[0].value), node.lineno))
    return found


def test_every_package_of_the_project_has_its_layer():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks"}
    assert packages == set(PACKAGES)


def test_no_layer_imports_a_higher_one():
    upward = [
        f"{where}: {module} imports {name}"
        for module, name, where in imports()
        if (mine := layer_of(module)) is not None
        and (theirs := layer_of(name)) is not None
        and LAYERS[theirs] > LAYERS[mine]
    ]
    assert upward == []


def test_no_layer_names_a_model_of_a_higher_one():
    upward = [
        f"{path.relative_to(ROOT)}:{line}: {module} names a model of {app}"
        for module, path in modules()
        for app, line in models_named(path.read_text())
        if app in LAYERS and LAYERS[app] > LAYERS[layer_of(module) or "config"]
    ]
    assert upward == []


@pytest.mark.parametrize(
    "source",
    [
        'x = models.ForeignKey("poker.Table", on_delete=models.PROTECT)',
        'RECORD = "wallet.IdempotencyRecord"',
        'apps.get_model("poker", "Table")',
        'django_apps.get_model("poker", "table")',
    ],
)
def test_every_form_of_naming_a_model_is_found(source):
    assert [app for app, _ in models_named(source)] == ["poker" if "poker" in source else "wallet"]


def test_a_dotted_module_path_or_task_name_is_not_a_model_name():
    assert models_named('x = "poker.tasks"\ny = "config.asgi.application"\nz = "audit.run"') == []


def test_the_engine_imports_nothing_of_the_project_nor_of_django():
    foreign = [
        f"{where}: {name}"
        for module, name, where in imports()
        if layer_of(module) == "engine"
        and layer_of(name) != "engine"
        and (layer_of(name) is not None or name.split(".")[0] in ("django", "rest_framework"))
    ]
    assert foreign == []


def test_core_imports_no_game_not_even_the_engine():
    # The engine's error mapping is registered by the poker app (core.exceptions).
    assert [w for m, n, w in imports() if layer_of(m) == "core" and layer_of(n) == "engine"] == []


def test_the_variants_are_a_leaf_of_the_engine():
    # config and state import the variants; the variants import neither (no circle).
    assert [
        f"{where}: {name}"
        for module, name, where in imports()
        if module == "poker.engine.variants"
        and name in ("poker.engine.config", "poker.engine.state", "poker.engine.transitions")
    ] == []


def imported_test_modules(source: str, package: str) -> list[str]:
    """The test modules (``test_*``) that a module of ``package`` imports, dotted."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] if node.level else [])
            base = ".".join(filter(None, [base, node.module or ""]))
            # ``from tests.x import test_y`` imports a module too
            modules = [base] if is_test(base) else [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found += [m for m in modules if is_test(m)]
    return found


def is_test(module: str) -> bool:
    return any(part.startswith("test_") for part in module.split("."))


def test_no_test_module_imports_another_test_module():
    # Shared helpers live in tests/support/, shared fixtures in a conftest.py.
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for name in imported_test_modules(
            path.read_text(), ".".join(path.relative_to(ROOT).parent.parts)
        )
    ]
    assert found == []


@pytest.mark.parametrize(
    "line",
    [
        "from tests.handhistory.test_export_phh import TABLES",
        "from tests.handhistory import test_export_phh",
        "import tests.handhistory.test_export_phh",
        "from .test_export_phh import TABLES",
        "from . import test_export_phh",
        "def f():\n    from tests.handhistory.test_export_phh import TABLES",
    ],
)
def test_every_form_of_importing_a_test_module_is_found(line):
    found = imported_test_modules(line, "tests.handhistory")
    assert "tests.handhistory.test_export_phh" in found


def test_an_import_of_a_support_module_is_not_an_import_of_a_test_module():
    assert imported_test_modules("from tests.support.handhistory import TABLES", "tests.x") == []
