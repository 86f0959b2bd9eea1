"""DuckDB views and the Polars API over a tournament directory; bad directories and parts."""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from engine import GAMES
from tournaments.analysis import LogError, open_log
from tournaments.analysis.synth import write_log

from .conftest import cardarena


def test_views_hold_every_row_with_game_from_the_partition(clean_log: Path) -> None:
    log = open_log(clean_log)
    con = log.connect()
    n_matches = sum(pq.read_metadata(p.path).num_rows for p in log.parts["matches"])
    n_moves = sum(pq.read_metadata(p.path).num_rows for p in log.parts["moves"])
    assert con.execute("SELECT count(*) FROM matches").fetchone() == (n_matches,)
    assert con.execute("SELECT count(*) FROM moves").fetchone() == (n_moves,)
    assert con.execute("SELECT sum(moves) FROM matches").fetchone()[0] == n_moves
    games = {r[0] for r in con.execute("SELECT DISTINCT game FROM events").fetchall()}
    assert games == set(GAMES)
    assert log.games == sorted(GAMES)


def test_polars_api_returns_frames(clean_log: Path) -> None:
    log = open_log(clean_log)
    m = log.matches(game="hartenjagen")
    assert isinstance(m, pl.DataFrame)
    assert set(m["game"].unique()) == {"hartenjagen"}
    mid = m["match_id"][0]
    mv = log.moves(match_id=mid)
    assert mv["ply"].to_list() == list(range(m["moves"][0]))
    ev = log.events(match_id=mid, columns=["event"])
    assert ev.columns == ["event"] and ev.height > 0
    agg = log.sql("SELECT bot, count(*) AS n FROM moves GROUP BY bot ORDER BY bot")
    assert agg["n"].sum() == log.moves().height


def test_not_a_tournament_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="not a tournament directory"):
        open_log(tmp_path)
    with pytest.raises(LogError, match="no such directory"):
        open_log(tmp_path / "nope")
    proc = cardarena("rank", str(tmp_path))
    assert proc.returncode == 2 and "not a tournament directory" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_truncated_part_is_reported_with_its_name(log_copy: Path) -> None:
    part = sorted((log_copy / "moves").glob("game=*/*.parquet"))[0]
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])
    with pytest.raises(LogError) as e:
        open_log(log_copy)
    assert str(part) in str(e.value) and "truncated or corrupted" in str(e.value)
    for cmd in (["query", str(log_copy), "SELECT 1"], ["verify", str(log_copy)]):
        proc = cardarena(*cmd)
        assert proc.returncode == 2, proc
        assert str(part) in proc.stderr and "Traceback" not in proc.stderr


def test_missing_part_is_reported_with_its_name(log_copy: Path) -> None:
    part = sorted((log_copy / "events").glob("game=*/*.parquet"))[0]
    part.unlink()
    with pytest.raises(LogError, match="missing part file") as e:
        open_log(log_copy)
    assert str(part) in str(e.value)


def test_foreign_parquet_is_not_a_part(log_copy: Path) -> None:
    part = sorted((log_copy / "matches").glob("game=*/*.parquet"))[0]
    table = pq.read_table(part).drop_columns(["seed"])
    pq.write_table(table, part)
    with pytest.raises(LogError, match="missing column"):
        open_log(log_copy)


def test_query_formats(clean_log: Path, tmp_path: Path) -> None:
    sql = "SELECT game, count(*) AS n FROM matches GROUP BY game ORDER BY game"
    proc = cardarena("query", str(clean_log), sql, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["game"] for r in rows] == sorted(GAMES) and all(r["n"] > 0 for r in rows)
    proc = cardarena("query", str(clean_log), sql, "--format", "csv")
    assert proc.stdout.splitlines()[0] == '"game","n"'
    out = tmp_path / "q.parquet"
    proc = cardarena("query", str(clean_log), sql, "--format", "parquet", "--out", str(out))
    assert proc.returncode == 0 and pq.read_table(out).num_rows == len(GAMES)
    proc = cardarena("query", str(clean_log), sql)
    assert proc.returncode == 0 and "hartenjagen" in proc.stdout


def test_sql_error_shows_duckdbs_message_without_traceback(clean_log: Path) -> None:
    proc = cardarena("query", str(clean_log), "SELECT gaem FROM matches")
    assert proc.returncode == 2
    assert "SQL error" in proc.stderr and "gaem" in proc.stderr and "Traceback" not in proc.stderr


def test_empty_tables_still_have_views(tmp_path: Path) -> None:
    (tmp_path / "_tournaments").mkdir()
    log = open_log(tmp_path)
    assert log.sql("SELECT count(*) AS n FROM moves")["n"][0] == 0


def test_synthetic_log_is_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        write_log(root, ["hartenjagen"], ["random-a", "random-b", "first", "last"], boards=1, max_deals=1)
    cols = ["match_id", "scores", "moves"]
    assert open_log(a).matches(columns=cols).sort("match_id").equals(
        open_log(b).matches(columns=cols).sort("match_id"))
