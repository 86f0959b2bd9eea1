"""No tracebacks, ever (CONTRACT): every ``cardarena`` command, given bad paths, says so in one line on
stderr and exits non-zero.  The commands are walked from the typer app, so a new command is covered
the day it is added.  Runs ``dashboards.app.main`` in this process (the real entry point, fast).

Bad paths: a missing one (its folder missing too), a file where a folder is expected (and a path under
a file), a folder where a file is expected, and one that cannot be created (under /proc).
"""
from __future__ import annotations

import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from dashboards import app as cli
from dashboards.app import app

from .tournaments.conftest import fastest_game, raw_spec, toml_of

PATH_OPTIONS = {"--out", "--output", "--data-dir", "--replay"}
"""Options that take a path even where they are typed ``str``."""
FOLDER_OUTPUTS = {("tournament run", "--out"), ("fuzz", "--out"), ("bots submit", "--data-dir"),
                  ("bots list", "--data-dir"), ("bots replay", "--out"), ("bots replay", "--bots-data")}
"""Path options naming a folder to write into: a missing one may be created, an existing folder is fine."""
EXIT_2 = {"query --out", "tournament run --out", "dashboard --output", "show --output", "fuzz --out",
          "fuzz --replay"}
"""Path options whose bad path must exit 2 (bad input)."""
CHEAP = {"tournament run": ["--inline", "--no-progress"], "fuzz": ["--minutes", "0.001"],
         "bots submit": ["--games", fastest_game()]}
"""Flags that keep a command that gets past its path checks from doing much work."""


def commands() -> Iterator[tuple[str, Any]]:
    def walk(c: Any, path: list[str]) -> Iterator[tuple[str, Any]]:
        subs = getattr(c, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), c
    yield from walk(typer.main.get_command(app), [])


def path_options(c: Any) -> list[str]:
    """The long flags of ``c``'s options that take a path (typed Path, or named like one)."""
    hints = typing.get_type_hints(c.callback, include_extras=False) if c.callback else {}
    out = []
    for p in c.params:
        if p.param_type_name != "option" or p.is_flag:
            continue
        typed = hints.get(p.name)
        is_path = typed is Path or Path in typing.get_args(typed)
        flag = max(p.opts, key=len)
        if is_path or flag in PATH_OPTIONS:
            out.append(flag)
    return out


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    argv = sys.argv
    sys.argv = ["cardarena", *args]
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = argv
    res = capsys.readouterr()
    return code, res.out, res.err


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real tournament (one game, four random entrants, one board), its spec, and bad paths."""
    base = tmp_path_factory.mktemp("badpaths")
    spec = base / "spec.toml"
    spec.write_text(toml_of(raw_spec(base)))
    from tournaments.runners import run_tournament
    from tournaments.spec import load_spec
    summary = run_tournament(load_spec(spec), executor="inline", progress=False)
    import pyarrow.parquet as pq
    mid = pq.read_table(summary.root / "matches").column("match_id")[0].as_py()
    a_file = base / "a_file.txt"
    a_file.write_text("not a folder\n")
    a_folder = base / "a_folder"
    a_folder.mkdir()
    return {"dir": str(summary.root), "spec": str(spec), "match": mid, "base": base,
            "bad": {"missing": str(base / "missing" / "deeper" / "x.csv"), "file": str(a_file),
                    "under_file": str(a_file / "x.csv"), "folder": str(a_folder),
                    "uncreatable": "/proc/1/cardarena-nowhere/x.csv"}}


VALID = {"directory": "dir", "output": "dir", "spec": "spec", "match_id": "match"}
"""Positional arguments: which real place fills them when an option is the one under test."""
LITERAL = {"sql": "SELECT * FROM matches", "game": None, "path": "bots/builtin/random.py", "name": "rnd"}


def valid_args(c: Any, places: dict[str, Any]) -> list[str] | None:
    args: list[str] = []
    for p in c.params:
        if p.param_type_name == "argument":
            if p.name in VALID:
                args.append(places[VALID[p.name]])
            elif p.name in LITERAL:
                args.append(LITERAL[p.name] or fastest_game())
            elif p.required:
                return None
        elif p.required:  # a required option: a literal value by name
            if p.name not in LITERAL:
                return None
            args += [max(p.opts, key=len), LITERAL[p.name] or fastest_game()]
    return args


def assert_one_line(code: int, err: str, what: str) -> None:
    assert code != 0, f"{what}: exit 0"
    assert "Traceback" not in err, f"{what}: {err}"
    assert len(err.strip().splitlines()) == 1, f"{what}: stderr is not one line: {err!r}"


def test_every_command_with_bad_path_arguments(capsys: pytest.CaptureFixture[str],
                                               places: dict[str, Any]) -> None:
    """Each positional argument, in turn, a bad path of every kind: one line, non-zero, no traceback."""
    tried = 0
    for name, c in commands():
        positional = [p for p in c.params if p.param_type_name == "argument"]
        good = valid_args(c, places)
        for i, _ in enumerate(positional):
            for kind, bad in places["bad"].items():
                if kind == "folder" and positional[i].name in ("directory", "output"):
                    continue  # an empty folder where a tournament folder is expected: covered by "file"
                args = list(good) if good is not None else [bad] * len(positional)
                args[i] = bad
                args = [a for a in args if a is not None]
                code, _, err = run(capsys, [*name.split(), *args])
                assert_one_line(code, err, f"cardarena {name} {' '.join(args)} ({kind})")
                tried += 1
    assert tried > 20


def test_every_command_with_bad_path_options(capsys: pytest.CaptureFixture[str],
                                             places: dict[str, Any]) -> None:
    """Each path option, with good arguments, given a path it cannot use: one line, non-zero (2 for
    the bad-input exit the contract documents, at least where ``EXIT_2`` says)."""
    covered = []
    for name, c in commands():
        good = valid_args(c, places)
        if good is None:
            continue
        for flag in path_options(c):
            folder = (name, flag) in FOLDER_OUTPUTS
            kinds = ["under_file", "uncreatable"] + ([] if folder else ["missing"])
            if not folder and flag != "--replay":
                kinds.append("folder")
            if flag == "--replay":
                kinds.append("file")  # a file that is not a case
            for kind in kinds:
                args = [*name.split(), *good, flag, places["bad"][kind], *CHEAP.get(name, [])]
                code, _, err = run(capsys, args)
                assert_one_line(code, err, f"cardarena {' '.join(args)} ({kind})")
                if f"{name} {flag}" in EXIT_2:
                    assert code == 2, f"cardarena {' '.join(args)}: exit {code}, not 2"
            covered.append(f"{name} {flag}")
    assert EXIT_2 <= set(covered), covered


def test_query_out_into_a_missing_folder_writes_nothing(capsys: pytest.CaptureFixture[str],
                                                        places: dict[str, Any]) -> None:
    target = Path(places["bad"]["missing"])
    code, _, err = run(capsys, ["query", places["dir"], "SELECT 1", "--format", "csv", "--out", str(target)])
    assert code == 2 and str(target.parent) in err and not target.parent.exists()


