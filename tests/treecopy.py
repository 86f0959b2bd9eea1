"""A private copy of the project's source tree, for tests that add a game file to ``engine/games/``.

Such a test must not write into the checkout's own ``engine/games/``: the suite runs in several
xdist workers at once, and every other worker lists that folder (``engine.discover``) and hashes it
(the engine version, the sandbox's library digest) while the file comes and goes.  The tests copy
the tree instead and run the real entry points in the copy, as processes whose ``cwd`` and
``PYTHONPATH`` are the copy (the checkout's editable install is found after them).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The checkout the suite runs from."""

TOP_LEFT_OUT = {".git", ".venv", "build", "data", "cardarena.egg-info"}
"""Top-level folders not copied: the history, the environment, the compiled build (the copy runs the
source, as the fast suite does) and the logs written under ``data/``."""

CACHES = shutil.ignore_patterns("__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis")


def project_copy(dest: Path) -> Path:
    """Copy the project's sources (engine, bots, tournaments, dashboards, docs, examples, tests, the
    build files) into ``dest`` and return it."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        top = TOP_LEFT_OUT if Path(folder) == ROOT else set()
        return set(CACHES(folder, names)) | (top & set(names))

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    (dest / "data").mkdir()
    shutil.copyfile(ROOT / "data" / "README.md", dest / "data" / "README.md")
    return dest


def copy_env(tree: Path, **extra: str) -> dict[str, str]:
    """The environment of a process that runs the copy's code: its ``PYTHONPATH`` first, the source
    engine (``CARDARENA_COMPILED=0``: the compiled build is the checkout's, built from other files)."""
    path = os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "CARDARENA_COMPILED": "0", **extra}
