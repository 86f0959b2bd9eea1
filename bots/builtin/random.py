"""The random player: a uniform choice among the legal actions, from its own seeded RNG."""
from __future__ import annotations

import random
from typing import Any

OPTIONS: tuple[()] = ()
"""No constructor options (``bots.builtin._common.check_options``)."""


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any]) -> str:
        return self.rng.choice(observation["legal_actions"])
