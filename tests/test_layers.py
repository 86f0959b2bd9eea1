"""The layers: engine <- bots <- tournaments <- dashboards.  A module imports only its own layer and
those below it (STYLE.md, "the shape of the house"); the ``cardarena`` entry point lives in the top
layer (dashboards/app.py), which mounts every layer's commands.

Every ``import`` and ``from ... import`` of every module is read with :mod:`ast`, wherever it sits (a
function body, an ``if TYPE_CHECKING:`` block): a lazy import is still an arrow between layers.
"""
from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "bots", "tournaments", "dashboards")
"""Bottom to top: each may import the ones before it."""


def imported_modules(source: str, module: str, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every module ``source`` (the text of ``module``) imports; relative
    imports resolved against ``module``'s package."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            yield node.lineno, name


def upward_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """``module`` line N imports X (layer L above M)`` for each import of a higher layer."""
    own = LAYERS.index(module.split(".")[0])
    bad = []
    for line, name in imported_modules(source, module, is_package):
        top = name.split(".")[0]
        if top in LAYERS and LAYERS.index(top) > own:
            bad.append(f"{module} line {line} imports {name} (layer {top} is above {LAYERS[own]})")
    return bad


def product_modules() -> Iterator[tuple[Path, str, bool]]:
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            yield path, ".".join(parts), rel.name == "__init__"


def test_no_module_imports_a_layer_above_its_own() -> None:
    modules = list(product_modules())
    assert len({m.split(".")[0] for _, m, _ in modules}) == len(LAYERS)   # every layer was read
    bad = [b for path, module, pkg in modules for b in upward_imports(path.read_text(), module, pkg)]
    assert not bad, "\n".join(bad)


def test_layer_check_sees_lazy_relative_and_type_only_imports() -> None:
    source = ("from typing import TYPE_CHECKING\n"
              "import engine.cards\n"
              "if TYPE_CHECKING:\n    from tournaments.spec import Spec\n"
              "def f() -> None:\n    import dashboards.report\n"
              "from . import api\n")
    bad = upward_imports(source, "bots.match")
    named = sorted(b.split(" imports ")[1].split(" ")[0] for b in bad)
    assert named == ["dashboards.report", "tournaments.spec"], bad
    assert upward_imports("from .. import tournaments\n", "bots.builtin.greedy") == []   # bots.tournaments
    assert upward_imports("from ..analysis import views\n", "tournaments.analysis.cli") == []
    assert upward_imports("import bots.api\n", "tournaments.analysis", is_package=True) == []
    assert upward_imports("from .. import app\n", "dashboards.x") == []


def test_cardarena_entry_point_is_in_the_top_layer() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, func = scripts["cardarena"].partition(":")
    assert module.split(".")[0] == LAYERS[-1], scripts
    import importlib
    assert callable(getattr(importlib.import_module(module), func))


def test_match_loop_record_is_the_logs_moves_row() -> None:
    """bots never import tournaments: the match loop's neutral ``MoveRecord`` is what the log keeps as
    its ``moves`` row (``MoveRow``), field for field, in the order of the ``moves`` columns."""
    import typing

    from bots.match import MoveRecord
    from tournaments.log import MOVES_SCHEMA, MoveRow

    columns = [f.name for f in MOVES_SCHEMA if f.name not in ("tournament", "match_id", "bot")]
    assert list(MoveRecord._fields) == columns
    hints = typing.get_type_hints(MoveRecord)
    assert tuple(hints[f] for f in MoveRecord._fields) == typing.get_args(MoveRow)
