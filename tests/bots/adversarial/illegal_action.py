"""Plays a well-formed action that is not legal: a card it does not hold."""
from typing import Any

TOKENS = [r + s for s in "CDHS" for r in "23456789TJQKA"]


def act(observation: dict[str, Any]) -> str:
    held = set(observation["hand"])
    return "play " + next(t for t in TOKENS if t not in held)
