"""Plays the first legal action, then raises on its third move."""
from typing import Any


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.moves = 0

    def act(self, observation: dict[str, Any]) -> str:
        self.moves += 1
        if self.moves == 3:
            return self.explode(observation)
        return str(observation["legal_actions"][0])

    def explode(self, observation: dict[str, Any]) -> str:
        raise ValueError("exploding on move 3 on purpose")
