"""Tables fit their data at 80 columns: `rank`, `play`, `tournament status`, `coverage` and `query`
rendered at COLUMNS=80 cut no cell (no "…"), keep every line within 80 columns, and show ids whole
(they are pasted into `verify --match`); `--wide` shows the rest."""
from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

import dashboards.app as main_cli
import tournaments.analysis.cli as analysis_cli
import tournaments.tournament_cli as tournament_cli
from engine import GAMES

from ..test_bad_paths import run
from ..tournaments.conftest import raw_spec, toml_of


@pytest.fixture
def at80(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every console of the command line 80 columns wide (as COLUMNS=80 makes them)."""
    for mod in (analysis_cli, main_cli, tournament_cli):
        monkeypatch.setattr(mod.out, "width", 80)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament with long entrant labels (one game, four seats, one board)."""
    from tournaments.runners import run_tournament
    from tournaments.spec import load_spec
    base = tmp_path_factory.mktemp("tables")
    bots = [{"name": f"a-rather-long-entrant-label-{i}", "bot": "random"} for i in range(4)]
    spec = base / "spec.toml"
    spec.write_text(toml_of(raw_spec(base, name="a-tournament-with-a-long-id", bots=bots)))
    return run_tournament(load_spec(spec), executor="inline", progress=False).root


def fits(text: str) -> None:
    assert "…" not in text, text
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, "\n".join(wide)


def test_rank_fits_80_columns(capsys: pytest.CaptureFixture[str], at80: None, tournament: Path) -> None:
    code, text, err = run(capsys, ["rank", str(tournament), "--bootstrap", "20"])
    assert code == 0, err
    fits(text)
    assert all(f"a-rather-long-entrant-label-{i}" in text for i in range(4)), text
    assert "openskill mu" not in text
    code, wide, _ = run(capsys, ["rank", str(tournament), "--bootstrap", "20", "--wide"])
    assert code == 0 and "openskill mu ± sigma" in wide and "…" not in wide


def test_tournament_status_fits_80_columns(capsys: pytest.CaptureFixture[str], at80: None,
                                           tournament: Path) -> None:
    code, text, err = run(capsys, ["tournament", "status", str(tournament)])
    assert code == 0, err
    fits(text)
    assert "a-tournament-with-a-long-id" in text
    code, wide, _ = run(capsys, ["tournament", "status", str(tournament), "--wide"])
    assert code == 0 and "a-rather-long-entrant-label-3" in wide and "…" not in wide


def test_play_fits_80_columns(capsys: pytest.CaptureFixture[str], at80: None) -> None:
    for game in GAMES[:6]:
        code, text, err = run(capsys, ["play", game, "--seed", "3", "--deals", "1"])
        assert code == 0, err
        fits(text)
        assert "score sheet" in text


def test_coverage_fits_80_columns(capsys: pytest.CaptureFixture[str], at80: None, clean_log: Path) -> None:
    code, text, err = run(capsys, ["coverage", str(clean_log)])
    assert code == 0, err
    fits(text)
    from tournaments.analysis.coverage import event_list
    for g in GAMES:
        assert all(f" {name} " in text for name in event_list(g).names), g


def test_query_table_shows_match_ids_whole(capsys: pytest.CaptureFixture[str], at80: None,
                                           clean_log: Path) -> None:
    ids = pq.read_table(clean_log / "matches").column("match_id").to_pylist()
    code, text, err = run(capsys, ["query", str(clean_log), "SELECT match_id, bots, scores, ranking, sheet, "
                                   "faults, options FROM matches", "--limit", "0"])
    assert code == 0, err
    fits(text)
    assert all(mid in text for mid in ids)
    # with the 19-digit seeds too the table is wider than 80 columns rather than cut a seed into lines
    seeds = pq.read_table(clean_log / "matches").column("seed").to_pylist()
    code, text, err = run(capsys, ["query", str(clean_log), "SELECT match_id, bots, scores, ranking, sheet, "
                                   "faults, options, seed FROM matches", "--limit", "0"])
    assert code == 0 and "…" not in text, err
    assert all(mid in text for mid in ids) and all(str(s) in text for s in seeds), text
