"""Answers with something that does not parse as an action: a wrong card form."""
from typing import Any


def act(observation: dict[str, Any]) -> str:
    return "play 10H"
