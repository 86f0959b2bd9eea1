"""Fixtures: small synthetic tournament logs, played by the engine and written by tournaments.log."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import GAMES
from tournaments.analysis.synth import write_log

BOTS = ["random-a", "random-b", "first", "last", "random-c", "random-d", "random-e", "random-f"]
"""Entrants; a game seats its default number of them (rotating through the list board by board)."""


@pytest.fixture(scope="session")
def clean_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One board of every registered game (all rotations), at most 2 deals a match. Do not modify."""
    root = tmp_path_factory.mktemp("log") / "t"
    write_log(root, GAMES, BOTS, boards=1, seed=5, max_deals=2, batch_size=2)
    return root


@pytest.fixture
def log_copy(clean_log: Path, tmp_path: Path) -> Path:
    """A private copy of ``clean_log`` that a test may tamper with."""
    dst = tmp_path / "t"
    shutil.copytree(clean_log, dst)
    return dst


def cardarena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dashboards.app", *args], capture_output=True, text=True,
                          timeout=300)
