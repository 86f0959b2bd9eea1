"""Spins forever on its second move."""
from typing import Any

moves: list[str] = []   # one entry per move asked


def act(observation: dict[str, Any]) -> str:
    moves.append("asked")
    while len(moves) >= 2:
        pass
    return str(observation["legal_actions"][0])
