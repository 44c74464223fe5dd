"""The examples in the engine's docstrings are executed, so they cannot drift."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "awards",
    "betting",
    "config",
    "errors",
    "events",
    "game",
    "phh",
    "phh_cli",
    "pots",
    "showdown",
    "state",
    "transitions",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(f"poker.engine.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
