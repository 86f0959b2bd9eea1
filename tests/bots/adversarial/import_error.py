"""Fails while being imported."""
from typing import Any

raise RuntimeError("this bot breaks at import")


def act(observation: dict[str, Any]) -> str:  # never reached
    return str(observation["legal_actions"][0])
