"""Fixtures of the dashboard tests: small tournaments, played once per session, and their reports."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import GAMES
from tests.dashboards.tourney import CRASHY, run_tournament

GAME_PAIR = [g for g in ("hartenjagen", "manillen") if g in GAMES] or GAMES[:2]
"""The games of the command-line tournament: a plain game and a partnership game where they exist."""
ENTRANTS = ["random", "greedy", "r2", "g2", "r3"]


def cardarena(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dashboards.app", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="session")
def cli_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament: ``cardarena tournament run`` (in-process, no Ray) over two games, 5 entrants."""
    out = tmp_path_factory.mktemp("dash-cli") / "t"
    proc = cardarena("tournament", "run", "--inline", "--out", str(out), "--games", ",".join(GAME_PAIR),
                     "--bots", "random,greedy,r2=random,g2=greedy,r3=random", "--matches", "1",
                     "--max-deals", "1", "--seed", "5", "--no-progress", "--no-leaderboard", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["complete"] and summary["done"] > 0, summary
    return out


@pytest.fixture(scope="session")
def faulty_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament of one game in which the entrant ``crashy`` (a sandboxed bot file) crashes."""
    root = tmp_path_factory.mktemp("dash-faulty") / "t"
    game = GAME_PAIR[0]
    spec = {"name": "faulty", "seed": 11, "games": [game], "max_deals": 1,
            "bots": ["random", {"name": "r2", "bot": "random"}, {"name": "r3", "bot": "random"},
                     {"name": "crashy", "bot": "random"}]}
    return run_tournament(root, spec, files={"crashy": CRASHY})


@pytest.fixture(scope="session")
def buggy_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One game, two sandboxed bots with one bug each that shows at random moves (an illegal card, a
    crash whose message holds numbers and an address), and an entrant with options (ismcts)."""
    from tests.dashboards.tourney import FLAKY, ILLEGAL
    root = tmp_path_factory.mktemp("dash-buggy") / "t"
    spec = {"name": "buggy", "seed": 21, "games": [GAME_PAIR[0]], "max_deals": 1, "matches_per_seating": 2,
            "bots": ["random", {"name": "mc", "bot": "ismcts", "options": {"iterations": 4}},
                     {"name": "illegal", "bot": "random"}, {"name": "flaky", "bot": "random"}]}
    return run_tournament(root, spec, files={"illegal": ILLEGAL, "flaky": FLAKY})
