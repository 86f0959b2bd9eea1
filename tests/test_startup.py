"""``cardarena --help`` and ``cardarena games`` start fast: they load no game, no sandbox, no data
stack and not typer's rich help (bench/startup.py measures the time); ``games`` reads a cached index
kept in sync with the games here, and falls back to the games themselves when it is stale."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.games_index import INDEX_PATH, build_rows, listing, read_index, sources_digest

HEAVY = ("engine.core", "engine.games", "engine.tricks", "bots.sandbox", "bots.match", "bots.validate",
         "bots.registry", "sqlite3", "rich.markdown", "typer.rich_utils", "duckdb", "pyarrow", "polars",
         "ray", "numpy")

PROBE = """
import json, sys
sys.argv = ["cardarena", *json.loads(sys.argv[1])]
import dashboards.entry as cli
try:
    cli.main()
except SystemExit as e:
    code = e.code
sys.stderr.write("\\nMODULES " + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def probe(*args: str) -> tuple[int, str, list[str]]:
    """(exit code, stdout, the modules loaded) of ``cardarena ARGS`` in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True,
                          timeout=60)
    data = json.loads(proc.stderr.rsplit("MODULES ", 1)[1])
    return data["code"], proc.stdout, data["modules"]


def heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.mark.parametrize("args", [("--help",), ("games",), ("games", "--json"), ("bots", "--help")])
def test_help_and_games_load_no_game_no_sandbox_and_no_data_stack(args: tuple[str, ...]) -> None:
    code, out, modules = probe(*args)
    assert code == 0 and out.strip()
    stale = "" if read_index() is not None and read_index()["digest"] == sources_digest() else (
        f" ({INDEX_PATH} is stale, so the games were imported to list them: run `make regen`)")
    assert heavy(modules) == [], f"start-up imported {heavy(modules)}{stale}"


def test_games_json_from_the_index_is_what_the_games_declare() -> None:
    code, out, _ = probe("games", "--json")
    assert code == 0 and json.loads(out) == build_rows()


def test_the_shipped_games_index_is_in_sync_with_the_games() -> None:
    data = read_index()
    assert data is not None, f"{INDEX_PATH} is missing: run `make regen`"
    assert data["digest"] == sources_digest() and data["games"] == build_rows(), (
        f"{INDEX_PATH} is stale (a game added or changed since): run `make regen`")


def test_a_stale_or_missing_index_falls_back_to_the_games(tmp_path: Path) -> None:
    stale = tmp_path / "index.json"
    stale.write_text(json.dumps({"version": 1, "digest": "0" * 64, "games": [{"id": "made_up"}]}))
    for path in (stale, tmp_path / "missing.json", tmp_path):
        rows, from_index = listing(path)
        assert not from_index and rows == build_rows()
    rows, from_index = listing()
    assert from_index and rows == build_rows(), f"{INDEX_PATH} is stale: run `make regen`"


@pytest.mark.parametrize("columns", ["40", "80", "132"])
@pytest.mark.parametrize("args", [("games",), ("games", "--json")])
def test_the_fast_games_listing_prints_what_the_typer_command_prints(args: tuple[str, ...],
                                                                     columns: str) -> None:
    """``cardarena games`` is answered by dashboards/entry.py before typer loads; the typer command
    (``python -m dashboards.app games``) prints the same bytes at every terminal width."""
    env = {**os.environ, "COLUMNS": columns}
    fast, full = (subprocess.run([sys.executable, "-m", mod, *args], capture_output=True, text=True, env=env,
                                 timeout=60) for mod in ("dashboards", "dashboards.app"))
    assert (fast.returncode, fast.stderr) == (full.returncode, full.stderr) == (0, "")
    assert fast.stdout == full.stdout and fast.stdout.count("\n") > 28


def test_games_into_a_closed_pipe_exits_quietly() -> None:
    proc = subprocess.run(f"{sys.executable} -m dashboards games | head -1", shell=True, capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.startswith("id ") and proc.stdout.count("\n") == 1 and proc.stderr == ""
