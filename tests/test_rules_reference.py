"""Each game declares the rule events of its RULES.md card (``Game.rule_events``), which the
coverage report and the fuzzer count against; this checks the declaration against the rules reference
the project ships, docs/rules.md."""
from __future__ import annotations

import random

import pytest

from engine import GAMES, game_class, load_game
from tournaments.analysis.rules_doc import RULES_DOC, RulesCard, parse_rules


@pytest.fixture(scope="module")
def rules() -> dict[str, RulesCard]:
    """The cards of the rules reference the project ships (docs/rules.md)."""
    return parse_rules(RULES_DOC)


@pytest.mark.parametrize("game_id", GAMES)
def test_declared_events_cover_the_rules_card(game_id: str, rules: dict[str, RulesCard]) -> None:
    assert game_id in rules, (f"docs/rules.md has no rules card for {game_id}: add a section "
                              f"'### 2.N `{game_id}` — <name>' with its decisions and rule events")
    declared = game_class(game_id).rule_events
    missing = [e for e in rules[game_id].events if e not in declared]
    assert not missing, f"{game_id} does not declare RULES.md events {missing}: add them to its rule_events"
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
