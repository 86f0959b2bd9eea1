"""Suite-wide settings: the pure-Python engine unless ``CARDARENA_COMPILED`` is set (the compiled
build's suites set it: ``build_compiled.py --test``); tests that start Ray clusters run one after
another in one xdist worker."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("CARDARENA_COMPILED", "0")  # before any test imports engine (children inherit it)

collect_ignore = ["toygame/toy_tricks.py"]
"""A game file for tests/test_new_game.py to copy into engine/games/ (its declaration refuses to register
anywhere else), not a test module: the doctest collection must not import it."""

RAY_MODULES = {"tests.tournaments.test_ray", "tests.tournaments.test_driver",
               "tests.tournaments.test_submitted"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and module.__name__ in RAY_MODULES:
            item.add_marker(pytest.mark.xdist_group("ray"))
