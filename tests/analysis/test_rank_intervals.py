"""Ranks are intervals, the same in ``rank``, ``tournament leaderboard`` and the report (issue 26 §6):
two entrants share a rank only when their score intervals overlap, so a chain of ties never carries
an entrant with a disjoint interval up to first place."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.analysis.leaderboard import rank_labels

ROOT = Path(__file__).resolve().parents[2]


def _span(label: str) -> tuple[int, int]:
    lo, _, hi = label.partition("-")
    return int(lo), int(hi or lo)


def test_rank_intervals_of_disjoint_scores_do_not_share_first_place() -> None:
    # zenuwen in the issue: four "1~" although 0.75-1.00 and 0.00-0.25 are disjoint
    labels = rank_labels([(0.75, 1.0), (0.5, 0.8), (0.2, 0.55), (0.0, 0.25)])
    assert labels == ["1-2", "1-3", "2-4", "3-4"]
    assert rank_labels([(0.1, 0.9)] * 4) == ["1-4"] * 4             # all overlap: all may be anywhere
    assert rank_labels([(0.9, 1.0), (0.5, 0.6), (0.0, 0.1)]) == ["1", "2", "3"]


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ranks") / "o"
    proc = subprocess.run(
        [sys.executable, "-m", "dashboards", "tournament", "run", "--games", "hartenjagen", "--bots",
         "greedy,random,r2=random,g2=greedy", "--matches", "4", "--max-deals", "1", "--out", str(out),
         "--inline", "--no-progress", "--no-leaderboard"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


def _check(rows: list[tuple[str, float, float]]) -> None:
    """Ranks in the board's order: an entrant wholly above another ranks ahead of it at both ends of
    its interval; overlapping entrants may take a common rank."""
    assert rows
    for i, (a, alo, ahi) in enumerate(rows):
        for b, blo, bhi in rows[i + 1:]:
            (a1, a2), (b1, b2) = _span(a), _span(b)
            if min(abs(alo - bhi), abs(blo - ahi)) < 0.002:
                continue              # touching as printed (3 decimals): the exact values decide
            if alo > bhi:             # a wholly above b: a ranks ahead at both ends
                assert a1 < b1 and a2 < b2, rows
            else:                     # overlapping: the ranks they may take overlap
                assert a1 <= b2 and b1 <= a2, rows


def test_tournament_leaderboard_and_rank_print_rank_intervals(log: Path) -> None:
    env = dict(os.environ, COLUMNS="200")
    lb = subprocess.run([sys.executable, "-m", "dashboards", "tournament", "leaderboard", str(log)],
                        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert lb.returncode == 0, lb.stderr
    row = re.compile(r"^\W*(\d+(?:-\d+)?)\W+(\S+)\W+[\d.]+\W+([\d.]+)-([\d.]+)\b")
    rows = [(m[1], float(m[3]), float(m[4])) for m in map(row.match, lb.stdout.splitlines()) if m]
    _check(rows)
    assert "~" not in lb.stdout.split("leaderboard")[1].split("\n", 2)[2].split("ranked over")[0]
    data = json.loads(subprocess.run(
        [sys.executable, "-m", "dashboards", "tournament", "leaderboard", str(log), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120).stdout)
    ranked = [r for r in data if r["ranked"]]
    assert [x[0] for x in rows] == rank_labels([(r["lo"], r["hi"]) for r in ranked])
    rk = subprocess.run([sys.executable, "-m", "dashboards", "rank", str(log)], cwd=ROOT,
                        capture_output=True, text=True, timeout=120, env=env)
    assert rk.returncode == 0, rk.stderr
    rrow = re.compile(r"^\W*(\d+(?:-\d+)?)\W+(\S+)\W+\d+\W+[\d.]+\W+([\d.]+)-([\d.]+)\b")
    rrows = [(m[1], float(m[3]), float(m[4])) for m in map(rrow.match, rk.stdout.splitlines()) if m]
    _check(rrows)
    assert "1-2" in rk.stdout or all(_span(r[0])[0] == _span(r[0])[1] for r in rrows)
