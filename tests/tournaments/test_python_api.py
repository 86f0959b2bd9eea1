"""The Python API (``tournaments.api``: ``run_tournament``, ``open_log``) with the CLI's guarantees, the
``events.bot`` column and its view fallback for older logs, the ``deals`` view, and the analysis
notebook ``examples/analysis.py`` run on a small tournament."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.tournaments.conftest import raw_spec, toml_of
from tournaments.api import open_log, run_tournament
from tournaments.runners import TournamentError
from tournaments.spec import SpecError

from ..test_bad_paths import run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("api")
    spec = base / "spec.toml"
    spec.write_text(toml_of(raw_spec(base, games=["hartenjagen", "klop_bela"],
                                     bots=["random", "greedy", {"name": "r2", "bot": "random"},
                                           {"name": "g2", "bot": "greedy"}], max_deals=1)))
    out = base / "out"
    log = run_tournament(spec, out=out, executor="inline")
    assert log.matches().height == pq.read_table(out / "matches").num_rows > 0
    return spec, out


def test_run_tournament_has_the_guarantees_of_the_cli(logged: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = logged
    before = sorted(p.name for p in (out / "matches").rglob("*.parquet"))
    again = run_tournament(spec, out=out, executor="inline")   # finished: nothing is played again
    assert sorted(p.name for p in (out / "matches").rglob("*.parquet")) == before
    ids = again.sql("SELECT match_id FROM matches")["match_id"].to_list()
    assert len(ids) == len(set(ids))
    other = raw_spec(tmp_path, games=["hartenjagen"], seed=99)
    with pytest.raises(TournamentError, match="another"):
        run_tournament(other, out=out, executor="inline")
    with pytest.raises(SpecError, match="matches_per_seating"):
        run_tournament({**other, "matches_per_seating": 0}, executor="inline")
    assert open_log(out).sql("SELECT count(*) AS n FROM matches")["n"][0] == len(ids)


def test_events_name_the_bot_of_their_seat_and_old_logs_get_it_from_the_view(
        logged: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = logged
    rows = open_log(out).rows("SELECT e.seat, e.bot, m.bots FROM events e JOIN matches m USING (match_id)")
    assert rows and any(r["seat"] is not None for r in rows)
    for r in rows:
        assert r["bot"] == (r["bots"][r["seat"]] if r["seat"] is not None else None)
    # a log written before events.bot: the view fills it from matches.bots (DuckDB's bots[seat + 1])
    import shutil
    old = tmp_path / "old"
    shutil.copytree(out, old)
    for f in (old / "events").rglob("*.parquet"):
        t = pq.read_table(f)
        pq.write_table(t.drop_columns(["bot"]).replace_schema_metadata(t.schema.metadata), f)
        _rewrite_digest(old, f)
    q = "SELECT match_id, ply, event, seat, bot FROM events ORDER BY ALL"
    code, text, err = run(capsys, ["query", str(old), q, "--format", "json"])
    assert code == 0, err
    want = open_log(out).rows(q)
    assert json.loads(text) == want


def _rewrite_digest(root: Path, part: Path) -> None:
    """The digest record of ``part``'s batch, with the rewritten events part's hash (as a writer of that
    older version recorded it)."""
    import hashlib
    found = list((root / "_digests").rglob(f"{part.stem}*.json"))
    assert found, f"no digest record for {part}"
    for d in found:
        rec = json.loads(d.read_text())
        rec["sha256"]["events"] = hashlib.sha256(part.read_bytes()).hexdigest()
        rec["rows"]["events"] = pq.read_metadata(part).num_rows
        d.write_text(json.dumps(rec))


def test_the_deals_view_has_one_row_per_match_and_finished_deal(logged: tuple[Path, Path],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    _, out = logged
    log = open_log(out)
    m = log.rows("SELECT match_id, sheet FROM matches")
    d = log.rows("SELECT match_id, deal, scores FROM deals ORDER BY match_id, deal")
    assert sorted((r["match_id"], i + 1, r["sheet"][i]) for r in m for i in range(len(r["sheet"]))) == \
        [(r["match_id"], r["deal"], r["scores"]) for r in d]
    code, text, err = run(capsys, ["query", str(out), "SELECT count(*) AS n FROM deals", "--format", "json"])
    assert code == 0 and json.loads(text) == [{"n": len(d)}], err


def test_the_analysis_notebook_runs_on_a_small_tournament(logged: tuple[Path, Path], tmp_path: Path) -> None:
    _, out = logged
    plots = tmp_path / "plots"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "analysis.py"), str(out), str(plots)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "win_rate" in proc.stdout and "median" in proc.stdout and "times" in proc.stdout
    for name in ("win_rate_by_seat.html", "match_length.html"):
        assert (plots / name).stat().st_size > 1000
