"""The built-in baselines a bot author measures against: greedy plays at least as well as random in
every game (issue 21 section 7), over duplicate boards (``bench/bots.py``: every seed once per
rotation of the seats), with the 95% interval of "random's place - greedy's place" above 0."""
from __future__ import annotations

import pytest

from bench.bots import run
from engine import GAMES

SETS_MATCHES = 200
"""Matches per game at least (one deal each), seeds 1000 on: 50-100 duplicate sets, what
docs/bots.md's strength table shows (the narrowest margins, Klop Rummy's +0.09 ± 0.06 places and
Honderden 3p's +0.12 ± 0.05, hold there)."""


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_greedy_places_above_random_on_duplicate_boards(game_id: str) -> None:
    r = run(game_id, "greedy", "random", SETS_MATCHES, 1, 1, 1000)
    gain, half = r["place_gain"]
    assert r["faults"] == 0
    assert gain - half > 0, f"{game_id}: random's place - greedy's {gain:.3f} ± {half:.3f}, {r['sets']} sets"
    if r["confirms"]:  # the meld protocol: no melds laid and taken back in loops
        assert r["takebacks"] * 10 <= r["confirms"], (r["takebacks"], r["confirms"])
