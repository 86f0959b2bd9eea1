"""The layers: engine <- bots <- tournaments <- dashboards.  A module imports only its own layer and
those below it (STYLE.md, "the shape of the house"); the ``cardarena`` entry point lives in the top
layer (dashboards/app.py), which mounts every layer's commands.

Every ``import`` and ``from ... import`` of every module is read with :mod:`ast`, wherever it sits (a
function body, an ``if TYPE_CHECKING:`` block): a lazy import is still an arrow between layers.
"""
from __future__ import annotations

import ast
import subprocess
import sys
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


def import_graph() -> dict[str, set[str]]:
    """Product module -> the product modules it imports (lazily or not).  A module's import of a
    package it is inside (``engine.core`` importing ``engine``) is not an arrow: the package's
    ``__init__`` may gather its own modules."""
    modules = {m: (path, pkg) for path, m, pkg in product_modules()}
    graph: dict[str, set[str]] = {}
    for m, (path, pkg) in modules.items():
        deps = set()
        for _, name in imported_modules(path.read_text(), m, pkg):
            parts = name.split(".")
            target = next((".".join(parts[:k]) for k in range(len(parts), 0, -1)
                           if ".".join(parts[:k]) in modules), None)
            if target is not None and target != m and not m.startswith(target + "."):
                deps.add(target)
        graph[m] = deps
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle of ``graph`` as one of its strongly connected components (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    u = stack.pop()
                    on.discard(u)
                    comp.append(u)
                    if u == v:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    return cycles


def test_no_two_product_modules_import_each_other() -> None:
    """An import loop (``dashboards.app`` importing ``dashboards.entry``, which imports the app) makes
    two modules one; a lazy import inside a function is a loop too."""
    cycles = import_cycles(import_graph())
    assert not cycles, "import loops: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_import_cycles_finds_a_lazy_loop_and_no_false_one() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_cardarena_entry_point_is_in_the_top_layer() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, func = scripts["cardarena"].partition(":")
    assert module.split(".")[0] == LAYERS[-1], scripts
    import importlib
    assert callable(getattr(importlib.import_module(module), func))


def test_the_moves_schema_is_derived_from_the_match_loops_record() -> None:
    """bots never import tournaments: the match loop's neutral ``MoveRecord`` (bots/records.py) is the
    one type of a move row; the log writes it as it stands (``MoveRow`` is it) and derives the
    ``moves`` columns from its fields, in order, at the widths they name, so the two cannot drift.
    The derived schema is the one the logs have always had (SCHEMA_VERSION unchanged)."""
    import pyarrow as pa

    from bots.match import MoveRecord as FromMatch
    from bots.records import MoveRecord
    from tournaments.log import MOVES_SCHEMA, MoveRow

    assert MoveRow is MoveRecord is FromMatch
    assert MOVES_SCHEMA == pa.schema([
        pa.field("tournament", pa.string(), nullable=False),
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal", pa.int32(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),
        pa.field("seat", pa.int8(), nullable=False),
        pa.field("bot", pa.string(), nullable=False),
        pa.field("phase", pa.string(), nullable=False),
        pa.field("action", pa.string(), nullable=False),
        pa.field("legal_count", pa.int32(), nullable=False),
        pa.field("think_us", pa.int64(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
    ])
    assert [f.name for f in MOVES_SCHEMA if f.name not in ("tournament", "match_id", "bot")] == list(
        MoveRecord._fields)


def test_engine_rl_is_a_leaf_of_the_engine_layer() -> None:
    """engine.rl imports nothing above the engine; ``import engine`` does not import it, and
    ``import engine.rl`` imports neither pettingzoo nor pyspiel (the CLI's start-up pays for none)."""
    for path in sorted((ROOT / "engine" / "rl").glob("*.py")):
        module = "engine.rl." + path.stem if path.stem != "__init__" else "engine.rl"
        for _, name in imported_modules(path.read_text(), module, path.stem == "__init__"):
            assert name.split(".")[0] not in ("bots", "tournaments", "dashboards"), (path, name)
    code = ("import sys, engine; assert 'engine.rl' not in sys.modules; import engine.rl, engine.rl.tensors; "
            "bad = [m for m in ('pettingzoo', 'pyspiel', 'gymnasium') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
