"""Golden playthroughs pin each game's behaviour; a registered game without one fails, and every
file stays small enough to read in a review."""
from __future__ import annotations

import difflib
import re

import pytest

from engine import GAMES
from tests.playthrough import (
    DIR,
    MAX_FILE_BYTES,
    MAX_TOTAL_BYTES,
    Plan,
    path_for,
    plan_of,
    render,
    render_plan,
)


@pytest.mark.parametrize("game_id", GAMES)
def test_playthrough_matches_golden_file(game_id: str) -> None:
    path = path_for(game_id)
    assert path.exists(), f"{game_id} has no golden playthrough; run: make playthroughs"
    assert plan_of(game_id) is not None, f"{path.name} has no '# plan:' line; run: make playthroughs"
    want = path.read_text(encoding="utf-8")
    got = render(game_id)
    if got != want:
        diff = list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), str(path), "now", n=1))
        more = f"... ({len(diff) - 60} more diff lines)\n" if len(diff) > 60 else ""
        pytest.fail(f"{game_id} plays differently from {path.name} "
                    f"(if deliberate: make playthroughs)\n{''.join(diff[:60])}{more}")


def test_all_games_have_a_playthrough() -> None:
    missing = [g for g in GAMES if not path_for(g).exists()]
    assert not missing, f"games without a golden playthrough: {missing}; run: make playthroughs"
    stale = sorted(p.stem for p in DIR.glob("*.txt") if p.stem not in GAMES)
    assert not stale, f"playthrough files for unregistered games: {stale}"


def test_playthrough_files_stay_small() -> None:
    sizes = {p.stem: p.stat().st_size for p in DIR.glob("*.txt")}
    big = {g: n for g, n in sizes.items() if n > MAX_FILE_BYTES}
    assert not big, (f"playthroughs over {MAX_FILE_BYTES} bytes: {big}; "
                     "pick a smaller plan: python -m tests.playthrough --search --game ID")
    total = sum(sizes.values())
    assert total <= MAX_TOTAL_BYTES, f"playthroughs total {total} bytes, over the budget of {MAX_TOTAL_BYTES}"


def test_playthrough_prints_a_seats_observation_once_then_its_changes() -> None:
    text = render_plan("hartenjagen", Plan(seed=3, max_deals=1, cap=12))
    seats = re.findall(r"^ply \d+  deal \d+  seat (\d+)", text, re.M)
    full = re.findall(r"^ply \d+  deal \d+  seat (\d+)  phase \w+\n  observation: ", text, re.M)
    assert len(seats) == 12
    assert sorted(full) == sorted(set(seats)), "each seat's full observation is printed exactly once"
    assert text.count("  observation changes: ") == 12 - len(set(seats))
    assert "stopped at the ply cap, 12 plies" in text
