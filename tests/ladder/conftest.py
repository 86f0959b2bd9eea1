"""Helpers for the ladder tests: a tiny ladder of one fast game and reference bots that run in-process."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tournaments.ladder.core import create_ladder
from tournaments.ladder.spec import LadderSpec, parse_ladder_spec

GOOD_BOT = """
import random
class Bot:
    def __init__(self, game, seat, seed):
        self.rng = random.Random(seed)
    def act(self, observation):
        return sorted(observation["legal_actions"])[0]
"""
OTHER_BOT = """
def act(observation):
    return sorted(observation["legal_actions"])[-1]
"""
CRASH_BOT = """
def act(observation):
    raise RuntimeError("boom")
"""


def tiny_raw(**over: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "name": "lad", "seed": 3, "max_deals": 1, "games": ["hartenjagen"],
        "reference": ["random", "greedy", {"name": "random-2", "bot": "random"},
                      {"name": "random-3", "bot": "random"}, {"name": "random-4", "bot": "random"}],
        "matchmaking": {"placement_groups": 1, "recent": 1},
        "rating": {"bootstrap": 20, "board_every_s": 1.0, "fault_min_groups": 2, "min_groups": 2}}
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(raw.get(k), dict):
            raw[k] = {**raw[k], **v}
        else:
            raw[k] = v
    return raw


def tiny_spec(**over: Any) -> LadderSpec:
    return parse_ladder_spec(tiny_raw(**over))


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    out = tmp_path / "lad"
    create_ladder(tiny_spec(), str(out))
    return out


def bot_file(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.py"
    p.write_text(text)
    return p
