"""Each game declares the rule events of its RULES.md card (``Game.rule_events``), which the
coverage report and the fuzzer count against; this checks the declaration against RULES.md."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from engine import GAMES, game_class, load_game

TOOLS = Path(__file__).resolve().parents[2] / "shared" / "tools"


@pytest.fixture(scope="module")
def rules() -> dict[str, dict[str, list[str]]]:
    if not (TOOLS / "rules_coverage.py").exists():
        pytest.skip(f"the rules reference is not beside this checkout ({TOOLS})")
    sys.path.insert(0, str(TOOLS))
    try:
        from rules_coverage import parse_rules
    finally:
        sys.path.remove(str(TOOLS))
    parsed: dict[str, dict[str, list[str]]] = parse_rules()
    return parsed


@pytest.mark.parametrize("game_id", GAMES)
def test_declared_events_cover_the_rules_card(game_id: str, rules: dict[str, dict[str, list[str]]]) -> None:
    declared = game_class(game_id).rule_events
    missing = [e for e in rules[game_id]["events"] if e not in declared]
    assert not missing, f"{game_id} does not declare RULES.md events {missing}"
    assert len(set(declared)) == len(declared)


@pytest.mark.parametrize("game_id", GAMES)
def test_emitted_events_are_declared(game_id: str) -> None:
    declared = {f"{game_id}.{e}" for e in game_class(game_id).rule_events}
    game = load_game(game_id)
    for seed in range(30):
        state = game.new_match(seed=seed, max_deals=2)
        rng = random.Random(seed)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
        stray = {e["event"] for e in state.events} - declared
        assert not stray, f"{game_id} emits undeclared events {stray}"
