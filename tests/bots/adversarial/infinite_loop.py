"""Spins forever on its second move."""
from typing import Any

moves = 0


def act(observation: dict[str, Any]) -> str:
    global moves
    moves += 1
    while moves >= 2:
        pass
    return str(observation["legal_actions"][0])
