"""Every game declares its phases once (issue 22 section 5): ``PHASES`` on its state class, "over"
included; a phase seen in play but not declared fails here (and engine.rl's encoder refuses it)."""
from __future__ import annotations

import random

import pytest

import engine
from engine import load_game
from tests.rl.conftest import configurations


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_every_phase_seen_in_play_is_declared(game_id: str) -> None:
    declared = load_game(game_id).state_class.PHASES
    assert declared, f"{game_id}: declare PHASES (every phase, \"over\" included) on its state class"
    assert "over" in declared and len(set(declared)) == len(declared)
    seen: set[str] = set()
    for k, (opts, n) in enumerate(configurations(game_id)):
        st = load_game(game_id, **opts).new_match(seed=k, players=n, max_deals=2)
        rng = random.Random(k)
        for _ in range(600):
            seen.add(st.phase)
            if st.is_over():
                break
            st.apply(rng.choice(st.legal_actions()))
    undeclared = seen - set(declared)
    assert not undeclared, f"{game_id}: phases seen in play but not in PHASES: {sorted(undeclared)}"
