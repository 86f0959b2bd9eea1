"""Golden playthroughs pin each game's behaviour; a registered game without one fails."""
from __future__ import annotations

import difflib

import pytest

from engine import GAMES
from tests.playthrough import path_for, render


@pytest.mark.parametrize("game_id", GAMES)
def test_playthrough_matches_golden_file(game_id: str) -> None:
    path = path_for(game_id)
    assert path.exists(), f"{game_id} has no golden playthrough; run: make playthroughs"
    want = path.read_text(encoding="utf-8")
    got = render(game_id)
    if got != want:
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                 str(path), "now", n=1))[:40])
        pytest.fail(f"{game_id} plays differently from {path.name} "
                    f"(if deliberate: make playthroughs)\n{diff}")


def test_all_games_have_a_playthrough() -> None:
    missing = [g for g in GAMES if not path_for(g).exists()]
    assert not missing, f"games without a golden playthrough: {missing}; run: make playthroughs"
    stale = sorted(p.stem for p in path_for("x").parent.glob("*.txt") if p.stem not in GAMES)
    assert not stale, f"playthrough files for unregistered games: {stale}"
