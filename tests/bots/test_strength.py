"""The built-in baselines a bot author measures against: greedy plays at least as well as random in
every game (issue 21 section 7), over duplicate boards (``bench/bots.py``: every seed once per
rotation of the seats), with the 95% interval of "random's place - greedy's place" above 0."""
from __future__ import annotations

import pytest

from bench.bots import run
from engine import GAMES

SETS_MATCHES = 160
"""Matches per game at least (one deal each): 40-160 duplicate sets, enough for every game's
interval (the narrowest margin, Manille 2-7's and Honderden 3p's, is about 2.5 half-widths at 80)."""


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_greedy_places_above_random_on_duplicate_boards(game_id: str) -> None:
    r = run(game_id, "greedy", "random", SETS_MATCHES, 1, 1, 1000)
    gain, half = r["place_gain"]
    assert r["faults"] == 0
    assert gain - half > 0, f"{game_id}: random's place - greedy's {gain:.3f} ± {half:.3f}, {r['sets']} sets"
    if r["confirms"]:  # the meld protocol: no melds laid and taken back in loops
        assert r["takebacks"] * 10 <= r["confirms"], (r["takebacks"], r["confirms"])
