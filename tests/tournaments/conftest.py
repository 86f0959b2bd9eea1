"""Helpers for the tournament tests: small specs over the registered games, and log comparison."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine import GAMES, game_class
from tournaments.log import TABLES

TIMING = {"duration_s", "finished_at", "worker", "think_us"}
"""The only columns that differ between two runs of the same spec (data/README.md)."""

FOUR = ["random", {"name": "r2", "bot": "random"}, {"name": "r3", "bot": "random"},
        {"name": "r4", "bot": "random"}]
"""Four entrants of the random built-in: enough seats for every registered game at its default."""


def fastest_game() -> str:
    """A registered game to run tournaments of (Hartenjagen if there, else the first)."""
    return "hartenjagen" if "hartenjagen" in GAMES else GAMES[0]


def raw_spec(tmp_path: Path, **over: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"name": "t", "seed": 11, "games": [fastest_game()], "bots": list(FOUR),
                           "matches_per_seating": 1, "max_deals": 1, "output": str(tmp_path / "out")}
    raw.update(over)
    return raw


def toml_of(raw: dict[str, Any]) -> str:
    """A tiny TOML writer for the specs used here (strings, ints, lists of strings or inline tables)."""
    def val(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {val(x)}" for k, x in v.items()) + " }"
        raise TypeError(v)
    top = [f"{k} = {val(v)}" for k, v in raw.items() if not isinstance(v, dict)]
    tables = [f"[{k}]\n" + "\n".join(f"{kk} = {val(vv)}" for kk, vv in v.items())
              for k, v in raw.items() if isinstance(v, dict)]
    return "\n".join(top) + "\n\n" + "\n\n".join(tables) + "\n"


def read_table(root: Path, table: str) -> pa.Table:
    """A whole table of a tournament directory, ``game`` included (from the hive partition)."""
    return pq.read_table(root / table)


def comparable(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Every table without its timing columns, rows in a stable order."""
    out = {}
    for t in TABLES:
        tab = read_table(root, t)
        cols = [c for c in tab.column_names if c not in TIMING]
        rows = tab.select(cols).to_pylist()
        rows.sort(key=lambda r: tuple(str(r[c]) for c in ("match_id", "ply", *cols) if c in r))
        out[t] = rows
    return out


@pytest.fixture
def four_seat_games() -> list[str]:
    return [g for g in GAMES if game_class(g).default_players <= 4]
