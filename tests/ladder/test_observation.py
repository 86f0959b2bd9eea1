"""A bot observes nothing that names another entrant: over every game's observations, as the ladder
plays them (the batch of a group, entrants named NAME@V, through tournaments.runner.run_batch)."""
from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, game_class
from engine.core import Game
from tournaments.ladder.loop import make_batch
from tournaments.ladder.spec import parse_ladder_spec
from tournaments.runner import run_batch

NAMES = ["zorro-alice@7", "quokka-bob@3", "wombat-carol@12", "yak-dave@5"]


class Spy:
    def __init__(self, seen: list[str], seat: int, seed: int) -> None:
        self.seen, self.rng = seen, random.Random(seed)

    def act(self, observation: dict[str, Any]) -> str:
        self.seen.append(json.dumps(observation, sort_keys=True, default=str))
        return str(self.rng.choice(observation["legal_actions"]))


@pytest.mark.parametrize("game", GAMES)
def test_no_observation_names_another_entrant(game: str, tmp_path: Path) -> None:
    n = game_class(game).default_players
    spec = parse_ladder_spec({"name": "obs", "games": [game], "max_deals": 1,
                              "reference": ["random", "greedy", "ismcts"]})
    row = {"group_id": "", "game": game, "board": 1, "arrangement": NAMES[:n]}
    from tournaments.schedule import group_id
    row["group_id"] = group_id(spec.seed, game, NAMES[:n], 1)
    batch = make_batch(spec, tmp_path, b"k" * 32, row, 0, {}, {}, fsync=False)
    seen: list[str] = []
    made: list[tuple[Any, ...]] = []

    def make(g: Game, refs: Sequence[str], seed: int, seeds: Sequence[int]) -> list[Any]:
        made.append(tuple(refs))
        return [Spy(seen, s, seeds[s]) for s in range(len(refs))]

    run_batch(batch, make)
    assert made and all(sorted(r) == sorted(NAMES[:n]) for r in made)   # the runner knows the names...
    assert seen
    for text in seen:   # ... the bots never see them, nor their authors
        for name in NAMES:
            for part in (name, name.split("@")[0], name.split("-")[1].split("@")[0]):
                assert part not in text, (game, part)
